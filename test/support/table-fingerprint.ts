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
