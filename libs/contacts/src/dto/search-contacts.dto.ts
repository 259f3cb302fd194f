import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import {
  DEFAULT_LIMIT,
  DEFAULT_SORT_FIELD,
  DEFAULT_SORT_ORDER,
  MAX_CURSOR_LENGTH,
  MAX_LIMIT,
  SORT_FIELDS,
  SORT_ORDERS,
  type SortField,
  type SortOrder,
} from '../contacts-list.query';
import { SEARCH_OPERATORS, type SearchOperator } from '../contacts-search.fields';
import {
  MAX_FILTER_GROUPS,
  MAX_FILTERS_PER_GROUP,
  MAX_IN_VALUES,
  type SearchContactsInput,
} from '../contacts-search.query';
import { ContactDto } from './contact.dto';

// The members are checked by validateSearch (the same rules as the MCP tool), so each problem names
// the filter, field or operator it concerns; the decorators here only admit and document them.

export class SearchFilterDto {
  @ApiProperty({
    example: 'properties.plan',
    description:
      'A Contact field: id, status, email, phone, firstName, lastName, name, fullAddress, timezone, website, ' +
      'birthday, address.<postalCode|city|state|country|street|houseNumber>, createdAt, updatedAt, ' +
      'meta.ps_* (meta.ps_converted_at a date-time, the verified/booked/embed flags booleans), ' +
      'utmParams.utm_*, or properties.<name>. email compares whatever the case, phone by its digits.',
  })
  field: string;

  @ApiProperty({
    enum: SEARCH_OPERATORS,
    example: 'eq',
    description:
      'contains is case-insensitive; neq and not_in also match contacts without the field; exists and ' +
      'not_exists take no value. Text fields take every operator, date-times and numbers the comparisons ' +
      'and exists, booleans eq, neq and exists, id eq, neq, in and not_in.',
  })
  operator: SearchOperator;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } },
    ],
    example: 'pro',
    description:
      `Of the field's type (date-times as ISO 8601 with a zone); an array of 1 to ${MAX_IN_VALUES} for in and ` +
      'not_in; left out for exists and not_exists.',
  })
  value?: unknown;
}

export class SearchFilterGroupDto {
  @ApiProperty({
    type: [SearchFilterDto],
    minItems: 1,
    maxItems: MAX_FILTERS_PER_GROUP,
    description: 'Filters a contact must all meet (AND)',
  })
  filters: SearchFilterDto[];
}

export class SearchContactsDto implements SearchContactsInput {
  @ApiPropertyOptional({
    type: [SearchFilterGroupDto],
    maxItems: MAX_FILTER_GROUPS,
    description: 'Groups of which a contact must meet at least one (OR); none: every contact',
  })
  @Allow()
  filterGroups?: SearchFilterGroupDto[];

  @ApiPropertyOptional({ enum: SORT_FIELDS, default: DEFAULT_SORT_FIELD })
  @Allow()
  sortField?: SortField;

  @ApiPropertyOptional({
    type: 'integer',
    enum: SORT_ORDERS,
    default: DEFAULT_SORT_ORDER,
    description: '-1 descending (contacts without the sort value last), 1 ascending (those first)',
  })
  @Allow()
  sortOrder?: SortOrder;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT })
  @Allow()
  limit?: number;

  @ApiPropertyOptional({
    maxLength: MAX_CURSOR_LENGTH,
    description: 'meta.nextCursor of the previous page of the same search (same filters and sort)',
  })
  @Allow()
  cursor?: string;
}

export class SearchMetaDto {
  @ApiProperty({ type: 'integer', example: 50, description: 'Page size used' }) limit: number;
  @ApiProperty({ example: 1234, description: 'Contacts matching the search' }) total: number;
  @ApiProperty({ example: true, description: 'true when another page exists' }) hasNext: boolean;
  @ApiPropertyOptional({
    description: 'Present exactly when hasNext is true: send it as cursor with the same search',
  })
  nextCursor?: string;
}

export class ContactSearchResponse {
  @ApiProperty({ type: [ContactDto] }) data: ContactDto[];
  @ApiProperty({ type: SearchMetaDto }) meta: SearchMetaDto;
}
