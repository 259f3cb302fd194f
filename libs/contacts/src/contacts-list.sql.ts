import type { EntityManager } from 'typeorm';
import type { ListPosition } from './contacts-list.cursor';
import { type ListContactsQuery, type SortField, TIMESTAMP_SORT_FIELDS } from './contacts-list.query';
import { type ContactsWhere, type Placeholder, whereConditions } from './contacts-search.sql';

export { PHONE_DIGITS_SQL } from './contacts-search.sql';

// Each sort field has an index (funnel_id, <column> NULLS FIRST, id), see Contact.
const SORT_COLUMNS: Record<SortField, string> = {
  ps_converted_at: 'converted_at',
  email: 'email',
  firstName: 'first_name',
  lastName: 'last_name',
  updatedAt: 'updated_at',
};

export interface PageRow {
  id: string;
  /** The sort column as text (a cursor keeps it to the microsecond); null when missing. */
  sort_value: string | null;
}

export interface SqlQuery {
  sql: string;
  params: unknown[];
}

/** The page's query, and for a cursor at the edge of the missing values the one that continues it. */
export interface PageQueries {
  first: SqlQuery;
  /** Run when `first` answers fewer than `wanted` rows, for the rest of them. */
  then?: (remaining: number) => SqlQuery;
  wanted: number;
}

type Query = Pick<ListContactsQuery, 'sortField' | 'sortOrder' | 'limit' | 'page'>;

/** A SELECT of ids and sort values; `condition` adds to the funnel and filter conditions. */
function pageSelect(
  funnelId: string,
  filters: ContactsWhere,
  column: string,
  condition: (p: Placeholder) => string,
  order: string,
  limit: number,
  offset = 0,
): SqlQuery {
  const params: unknown[] = [];
  const p: Placeholder = (value) => `$${params.push(value)}`;
  const funnel = p(funnelId);
  const where = [`funnel_id = ${funnel}`, ...whereConditions(filters, p, funnel), condition(p)].filter(
    Boolean,
  );
  // The sort column leaves raw: OFFSET still projects every row it skips, and the text a cursor
  // needs is made only for the rows kept (see sortValueText). Limit and offset are parameters, so
  // one prepared statement serves every page.
  const sql =
    `SELECT id, ${column} AS sort_key FROM contacts WHERE ${where.join(' AND ')} ` +
    `ORDER BY ${order} LIMIT ${p(limit)}${offset ? ` OFFSET ${p(offset)}` : ''}`;
  return { sql, params };
}

/**
 * The queries of one page plus one more row (to tell whether a next page exists), in sort order:
 * ascending lists missing values first, descending last, ties broken by id, which is exactly the
 * order of the sort index read forwards or backwards. Only the index's columns are read, so the
 * scan is index-only. By page, OFFSET skips index entries: O(page × limit). By cursor (keyset),
 * the scan starts at the position: the same cost at any depth.
 */
export function pageQueries(
  funnelId: string,
  query: Query,
  filters: ContactsWhere,
  after?: ListPosition,
): PageQueries {
  const column = SORT_COLUMNS[query.sortField];
  const wanted = query.limit + 1;
  const ascending = query.sortOrder === 1;
  const select = (condition: (p: Placeholder) => string, order: string, limit: number, offset = 0) =>
    pageSelect(funnelId, filters, column, condition, order, limit, offset);
  // Exactly the sort index's order, read forwards or backwards, in every query below.
  const order = ascending ? `${column} ASC NULLS FIRST, id ASC` : `${column} DESC NULLS LAST, id DESC`;
  if (!after) return { first: select(() => '', order, wanted, query.page * query.limit), wanted };

  // The missing values form their own run of the order (first ascending, last descending). A row
  // comparison is one index range but never matches NULL, so the NULL run is read separately: two
  // range scans, the second only when the first ends within the page.
  const cast = TIMESTAMP_SORT_FIELDS.includes(query.sortField) ? 'timestamptz' : 'text';
  const comparison = ascending ? '>' : '<';
  const valuesAfter = (p: Placeholder) =>
    `(${column}, id) ${comparison} (${p(after.value)}::${cast}, ${p(after.id)}::uuid)`;
  const nullsAfter = (p: Placeholder) => `${column} IS NULL AND id ${comparison} ${p(after.id)}::uuid`;
  const allValues = () => `${column} IS NOT NULL`;
  const allNulls = () => `${column} IS NULL`;

  if (ascending && after.value === null) {
    return {
      first: select(nullsAfter, order, wanted),
      then: (remaining) => select(allValues, order, remaining),
      wanted,
    };
  }
  if (ascending) return { first: select(valuesAfter, order, wanted), wanted };
  if (after.value === null) return { first: select(nullsAfter, order, wanted), wanted };
  return {
    first: select(valuesAfter, order, wanted),
    then: (remaining) => select(allNulls, order, remaining),
    wanted,
  };
}

/** The sort of a page over rows `alias` that carry the sort column as `sort_key` and their id. */
export function pageOrder(query: Pick<ListContactsQuery, 'sortField' | 'sortOrder'>, alias: string): string {
  return query.sortOrder === 1
    ? `${alias}.sort_key ASC NULLS FIRST, ${alias}.id ASC`
    : `${alias}.sort_key DESC NULLS LAST, ${alias}.id DESC`;
}

/** The sort value of page rows `alias` as text: a cursor keeps a timestamp to the microsecond. */
export const sortValueText = (alias: string) => `${alias}.sort_key::text AS sort_value`;

/** Rows of a page query as PageRows, in the page's order. */
function pageRows(q: SqlQuery, query: Query): SqlQuery {
  return {
    sql: `SELECT p.id, ${sortValueText('p')} FROM (${q.sql}) p ORDER BY ${pageOrder(query, 'p')}`,
    params: q.params,
  };
}

export async function listPageRows(
  manager: Pick<EntityManager, 'query'>,
  funnelId: string,
  query: Query,
  filters: ContactsWhere,
  after?: ListPosition,
): Promise<PageRow[]> {
  const { first, then, wanted } = pageQueries(funnelId, query, filters, after);
  const page = pageRows(first, query);
  const rows: PageRow[] = await manager.query(page.sql, page.params);
  if (!then || rows.length >= wanted) return rows;
  const rest = pageRows(then(wanted - rows.length), query);
  return [...rows, ...((await manager.query(rest.sql, rest.params)) as PageRow[])];
}

/** The statement countMatching runs (benchmarks and tests show its plan). */
export function countMatchingSql(
  funnelId: string,
  filters: ContactsWhere,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p: Placeholder = (value) => `$${params.push(value)}`;
  const funnel = p(funnelId);
  const where = [`funnel_id = ${funnel}`, ...whereConditions(filters, p, funnel)];
  return { sql: `SELECT count(*) AS count FROM contacts WHERE ${where.join(' AND ')}`, params };
}

/** How many contacts match the filters (a filtered list counts; the whole funnel's count is kept). */
export async function countMatching(
  manager: Pick<EntityManager, 'query'>,
  funnelId: string,
  filters: ContactsWhere,
): Promise<number> {
  const { sql, params } = countMatchingSql(funnelId, filters);
  const rows: { count: string }[] = await manager.query(sql, params);
  return Number(rows[0].count);
}
