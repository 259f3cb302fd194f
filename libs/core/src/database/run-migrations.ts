import { DataSource } from 'typeorm';
import { DatabasePooling, DIRECT_CONNECTIONS, sessionUrl } from './connection-pooler';
import { DatabaseSchema, dataSourceOptions } from './data-source-options';
import { assertServerVersion } from './server-version';

// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK = 7_240_531;

/**
 * Applies pending migrations under an advisory lock, so a server and an admin command starting
 * together never run the same migration twice. Returns the names of the applied migrations. The
 * lock belongs to a session: behind a transaction pooler they run on DATABASE_DIRECT_URL.
 */
export async function runMigrations(
  url: string,
  schema: DatabaseSchema,
  pooling: DatabasePooling = DIRECT_CONNECTIONS,
): Promise<string[]> {
  const session = sessionUrl(pooling, url);
  if (!session) {
    throw new Error(
      'migrations hold a session lock, which a transaction pooler cannot keep: set DATABASE_DIRECT_URL',
    );
  }
  const dataSource = new DataSource({
    ...dataSourceOptions(session, schema),
    // Straight to PostgreSQL, past the pooler: a long migration is not bound by the statement
    // timeout set on the role for the pooled connections.
    extra: { max: 2, ...(pooling.DATABASE_DIRECT_URL && { statement_timeout: 0 }) },
  });
  await dataSource.initialize();
  try {
    await assertServerVersion((sql) => dataSource.query(sql));
    const runner = dataSource.createQueryRunner();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      await runner.release();
    }
  } finally {
    await dataSource.destroy();
  }
}
