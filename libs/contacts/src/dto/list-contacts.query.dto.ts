import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import {
  DEFAULT_LIMIT,
  DEFAULT_SORT_FIELD,
  DEFAULT_SORT_ORDER,
  FILTER_RULES,
  ListContactsQuery,
  MAX_CURSOR_LENGTH,
  MAX_LIMIT,
  PAGING_RULES,
  SORT_FIELDS,
  SORT_ORDERS,
  type SortField,
  type SortOrder,
} from '../contacts-list.query';

// Query values arrive as strings: whole numbers become numbers, anything else stays a string
// and fails the integer rule (so `limit=1.5`, `limit=abc` and `limit=` are all 400).
const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;

export class ListContactsQueryDto implements ListContactsQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    default: 0,
    example: 0,
    description:
      'Page number, 0-based. A deep page costs time proportional to page × limit (the offset is skipped ' +
      'in the sort index): page 10,000 of a 1,000,000-contact funnel takes tens of milliseconds, not one. ' +
      'For deep or complete walks use cursor instead; page cannot be combined with cursor.',
  })
  @Transform(toInteger)
  @IsInt({ message: PAGING_RULES.page })
  @Min(0, { message: PAGING_RULES.page })
  page: number = 0;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_LIMIT,
    default: DEFAULT_LIMIT,
    example: 50,
    description: 'Page size',
  })
  @Transform(toInteger)
  @IsInt({ message: PAGING_RULES.limit })
  @Min(1, { message: PAGING_RULES.limit })
  @Max(MAX_LIMIT, { message: PAGING_RULES.limit })
  limit: number = DEFAULT_LIMIT;

  @ApiPropertyOptional({
    enum: SORT_FIELDS,
    default: DEFAULT_SORT_FIELD,
    example: DEFAULT_SORT_FIELD,
    description:
      'Sort key; ps_converted_at is meta.ps_converted_at, updatedAt the last change. Ties are broken by ' +
      'contact id.',
  })
  @IsIn(SORT_FIELDS, { message: PAGING_RULES.sortField })
  sortField: SortField = DEFAULT_SORT_FIELD;

  @ApiPropertyOptional({
    type: 'integer',
    enum: SORT_ORDERS,
    default: DEFAULT_SORT_ORDER,
    example: DEFAULT_SORT_ORDER,
    description: '-1 descending (contacts without the sort value last), 1 ascending (those first)',
  })
  @Transform(toInteger)
  @IsIn(SORT_ORDERS, { message: PAGING_RULES.sortOrder })
  sortOrder: SortOrder = DEFAULT_SORT_ORDER;

  @ApiPropertyOptional({
    maxLength: MAX_CURSOR_LENGTH,
    description:
      'meta.nextCursor of the previous page: the next page starts right after it (keyset), so a page costs ' +
      'the same at any depth and no contact is skipped or repeated when others are added. Send the same ' +
      'sortField, sortOrder and filters as the request that answered it (else 400).',
  })
  @IsOptional()
  @IsString({ message: FILTER_RULES.cursor })
  @MaxLength(MAX_CURSOR_LENGTH, { message: FILTER_RULES.cursor })
  cursor?: string;

  @ApiPropertyOptional({
    example: 'ada@example.com',
    description: 'Only the contact(s) with exactly this email, compared case-insensitively',
  })
  @IsOptional()
  @IsString({ message: FILTER_RULES.email })
  email?: string;

  @ApiPropertyOptional({
    example: '+49 151 12345678',
    description:
      'Only contacts with this phone number; only the digits are compared (+49 151-123 = 49151123)',
  })
  @IsOptional()
  @IsString({ message: FILTER_RULES.phone })
  phone?: string;

  @ApiPropertyOptional({
    example: 'converted',
    description: "Only contacts with this status (one of the funnel's)",
  })
  @IsOptional()
  @IsString({ message: FILTER_RULES.status })
  status?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-01-31T12:00:00Z',
    description:
      'Only contacts changed strictly after this ISO 8601 date-time (zone required). To sync, pass the ' +
      'largest updatedAt seen, with sortField=updatedAt&sortOrder=1, and follow nextCursor.',
  })
  @IsOptional()
  @IsString({ message: FILTER_RULES.updatedAfter })
  updatedAfter?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-01-31T12:00:00Z',
    description: 'Only contacts created strictly after this ISO 8601 date-time (zone required)',
  })
  @IsOptional()
  @IsString({ message: FILTER_RULES.createdAfter })
  createdAfter?: string;
}
