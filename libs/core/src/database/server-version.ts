import { Client } from 'pg';

/** The oldest PostgreSQL the schema and its statements run on (the oldest Citus 13 supports). */
export const MIN_SERVER_VERSION_NUM = 150000;

/** The clear refusal for a server older than the schema needs, or undefined when it is new enough. */
export function serverVersionProblem(versionNum: number, version: string): string | undefined {
  if (versionNum >= MIN_SERVER_VERSION_NUM) return undefined;
  return `PostgreSQL ${version} is too old: this service needs PostgreSQL 15 or later`;
}

/** Fails with a clear message when the server at `query` is older than the schema needs. */
export async function assertServerVersion(
  query: (sql: string) => Promise<{ num: string; version: string }[]>,
): Promise<void> {
  const [row] = await query(
    "SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS version",
  );
  const problem = serverVersionProblem(Number(row.num), row.version);
  if (problem) throw new Error(problem);
}

/** The same check over a connection of its own, for a process that does not migrate. */
export async function assertServerVersionAt(url: string): Promise<void> {
  const client = new Client({ connectionString: url, application_name: 'funnel-crm-version-check' });
  await client.connect();
  try {
    await assertServerVersion(async (sql) => (await client.query(sql)).rows);
  } finally {
    await client.end();
  }
}
