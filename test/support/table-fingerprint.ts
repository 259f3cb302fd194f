import type { DataSource } from 'typeorm';

/**
 * Row count and an md5 over every row of every table of the public schema: equal before and after
 * a request means the request changed nothing.
 */
export async function tableFingerprint(dataSource: DataSource): Promise<Record<string, string>> {
  const tables: { name: string }[] = await dataSource.query(
    `SELECT format('%I', tablename) AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
  );
  const sums: Record<string, string> = {};
  for (const { name } of tables) {
    const [row]: { n: string; sum: string | null }[] = await dataSource.query(
      `SELECT count(*)::text AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS sum FROM ${name} t`,
    );
    sums[name] = `${row.n}:${row.sum ?? ''}`;
  }
  return sums;
}

/**
 * One statement giving every table's row count and md5 of its rows (partitions through their
 * parent), for suites that compare the whole database after each request.
 */
export async function fingerprintQuery(dataSource: DataSource): Promise<string> {
  const tables: { name: string }[] = await dataSource.query(
    `SELECT format('%I', c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`,
  );
  return tables
    .map(
      ({ name }) =>
        // last_used_at records that a key was presented (even when refused): bookkeeping, not a change.
        `SELECT '${name}' AS t, count(*)::text AS n, md5(string_agg((to_jsonb(x) - 'last_used_at')::text, '|' ORDER BY (to_jsonb(x) - 'last_used_at')::text)) AS sum FROM ${name} x`,
    )
    .join(' UNION ALL ');
}
