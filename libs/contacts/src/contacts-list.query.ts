import type { EntityManager } from 'typeorm';
import { ValidationError } from '@app/core';

export const SORT_FIELDS = ['ps_converted_at', 'email', 'firstName', 'lastName'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export const SORT_ORDERS = [-1, 1] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];
export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 50;

export interface ListContactsQuery {
  /** 0-based. */
  page: number;
  /** 1 to 100. */
  limit: number;
  sortField: SortField;
  /** -1 descending, 1 ascending. */
  sortOrder: SortOrder;
}

// Each sort field has an index (funnel_id, <column> NULLS FIRST, id), see Contact.
const SORT_COLUMNS: Record<SortField, string> = {
  ps_converted_at: 'converted_at',
  email: 'email',
  firstName: 'first_name',
  lastName: 'last_name',
};

/** The same rules as the REST query DTO, for callers that do not go through it (MCP). */
export function validateListQuery(query: ListContactsQuery): void {
  const problems: string[] = [];
  if (!Number.isInteger(query.page) || query.page < 0) problems.push('page must be an integer of at least 0');
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_LIMIT) {
    problems.push(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  if (!SORT_FIELDS.includes(query.sortField))
    problems.push(`sortField must be one of ${SORT_FIELDS.join(', ')}`);
  if (!SORT_ORDERS.includes(query.sortOrder)) problems.push('sortOrder must be -1 or 1');
  if (problems.length) throw new ValidationError(problems[0], problems);
}

/**
 * The ids of one page plus one more (to tell whether a next page exists), in sort order.
 * Ascending lists missing values first, descending last, ties broken by id, which is exactly
 * the order of the sort index read forwards or backwards. Only ids are read, so the scan is
 * index-only and OFFSET skips index entries, not rows; deep pages are still O(offset).
 * The funnel's company was checked by the caller; company_id is not in the index.
 */
export async function listPageIds(
  manager: EntityManager,
  funnelId: string,
  query: ListContactsQuery,
): Promise<string[]> {
  const column = SORT_COLUMNS[query.sortField];
  const order =
    query.sortOrder === 1 ? `${column} ASC NULLS FIRST, id ASC` : `${column} DESC NULLS LAST, id DESC`;
  const rows: { id: string }[] = await manager.query(
    `SELECT id FROM contacts WHERE funnel_id = $1 ORDER BY ${order} LIMIT $2 OFFSET $3`,
    [funnelId, query.limit + 1, query.page * query.limit],
  );
  return rows.map((r) => r.id);
}
