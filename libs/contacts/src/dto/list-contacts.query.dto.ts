import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import {
  DEFAULT_LIMIT,
  ListContactsQuery,
  MAX_LIMIT,
  SORT_FIELDS,
  SORT_ORDERS,
  type SortField,
  type SortOrder,
} from '../contacts-list.query';

// Query values arrive as strings: whole numbers become numbers, anything else stays a string
// and fails the integer rule (so `limit=1.5`, `limit=abc` and `limit=` are all 400).
const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;

const LIMIT_RULE = `limit must be an integer from 1 to ${MAX_LIMIT}`;
const PAGE_RULE = 'page must be an integer of at least 0';

export class ListContactsQueryDto implements ListContactsQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    default: 0,
    example: 0,
    description:
      'Page number, 0-based. A deep page costs time proportional to page × limit (the offset is skipped ' +
      'in the sort index): page 10,000 of a 1,000,000-contact funnel takes tens of milliseconds, not one.',
  })
  @Transform(toInteger)
  @IsInt({ message: PAGE_RULE })
  @Min(0, { message: PAGE_RULE })
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
  @IsInt({ message: LIMIT_RULE })
  @Min(1, { message: LIMIT_RULE })
  @Max(MAX_LIMIT, { message: LIMIT_RULE })
  limit: number = DEFAULT_LIMIT;

  @ApiPropertyOptional({
    enum: SORT_FIELDS,
    default: 'ps_converted_at',
    example: 'ps_converted_at',
    description: 'Sort key; ps_converted_at is meta.ps_converted_at. Ties are broken by contact id.',
  })
  @IsIn(SORT_FIELDS, { message: `sortField must be one of ${SORT_FIELDS.join(', ')}` })
  sortField: SortField = 'ps_converted_at';

  @ApiPropertyOptional({
    type: 'integer',
    enum: SORT_ORDERS,
    default: -1,
    example: -1,
    description: '-1 descending (contacts without the sort value last), 1 ascending (those first)',
  })
  @Transform(toInteger)
  @IsIn(SORT_ORDERS, { message: 'sortOrder must be -1 or 1' })
  sortOrder: SortOrder = -1;
}
