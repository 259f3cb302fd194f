import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ValidationError } from '@app/core';
import {
  DEFAULT_LIMIT,
  DEFAULT_SORT_FIELD,
  DEFAULT_SORT_ORDER,
  ListContactsQuery,
  validateListQuery,
} from './contacts-list.query';
import { ListContactsQueryDto } from './dto/list-contacts.query.dto';

const defaults: ListContactsQuery = {
  page: 0,
  limit: DEFAULT_LIMIT,
  sortField: DEFAULT_SORT_FIELD,
  sortOrder: DEFAULT_SORT_ORDER,
};

/** The first problem the service finds with a query (the MCP door), or undefined. */
function serviceProblem(query: Partial<ListContactsQuery>): string | undefined {
  try {
    validateListQuery({ ...defaults, ...query });
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).message;
  }
}

/** The problems the REST query DTO finds with the same values, sent as query strings. */
function dtoProblems(query: Record<string, string>): string[] {
  const dto = plainToInstance(ListContactsQueryDto, query);
  return validateSync(dto).flatMap((error) => Object.values(error.constraints ?? {}));
}

describe(validateListQuery.name, () => {
  it('answers the filters as the SQL compares them', () => {
    expect(
      validateListQuery({
        ...defaults,
        email: ' Ada@Example.com ',
        phone: '+49 151-123',
        status: ' lead ',
        updatedAfter: '2026-01-31T12:00:00Z',
      }),
    ).toEqual({
      emailLower: 'ada@example.com',
      phoneDigits: '49151123',
      status: 'lead',
      updatedAfter: new Date('2026-01-31T12:00:00Z'),
    });
  });

  // The REST DTO and the service (which MCP calls directly) take their limits and messages from
  // the same constants, so both doors refuse a value with the same words.
  it.each([
    ['limit 0', { limit: 0 }, { limit: '0' }, 'limit must be an integer from 1 to 100'],
    ['limit 101', { limit: 101 }, { limit: '101' }, 'limit must be an integer from 1 to 100'],
    ['page -1', { page: -1 }, { page: '-1' }, 'page must be an integer of at least 0'],
    [
      'an unknown sortField',
      { sortField: 'name' as never },
      { sortField: 'name' },
      'sortField must be one of ps_converted_at, email, firstName, lastName, updatedAt',
    ],
    ['sortOrder 0', { sortOrder: 0 as never }, { sortOrder: '0' }, 'sortOrder must be -1 or 1'],
    [
      'a cursor of 1001 characters',
      { cursor: 'c'.repeat(1001) },
      { cursor: 'c'.repeat(1001) },
      'cursor must be a meta.nextCursor of at most 1000 characters',
    ],
  ])('refuses %s from either door with the same message', (_, query, queryString, message) => {
    expect(serviceProblem(query)).toBe(message);
    expect(dtoProblems(queryString)).toContain(message);
  });

  it('accepts limit 100 from either door', () => {
    expect(serviceProblem({ limit: 100 })).toBeUndefined();
    expect(dtoProblems({ limit: '100' })).toEqual([]);
  });

  it.each([
    ['an email longer than the column', { email: `${'a'.repeat(309)}@example.com` }],
    ['an empty email', { email: '  ' }],
  ])('refuses %s', (_, query) => {
    expect(serviceProblem(query)).toBe('email must be a non-empty string of at most 320 characters');
  });

  it('refuses page with cursor', () => {
    expect(serviceProblem({ page: 2, cursor: 'abc' })).toBe('page cannot be combined with cursor');
  });

  it.each(['2026-01-31', '2026-01-31T12:00:00', 'yesterday'])(
    'refuses updatedAfter %p without a zone',
    (value) => {
      expect(serviceProblem({ updatedAfter: value })).toBe(
        'updatedAfter must be an ISO 8601 date-time with a zone, e.g. 2026-01-31T12:00:00Z',
      );
    },
  );
});
