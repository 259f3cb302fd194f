import { DataSource } from 'typeorm';
import { DatabaseSchema, dataSourceOptions } from './data-source-options';

// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK = 7_240_531;

/**
 * Applies pending migrations under an advisory lock, so a server and an admin command starting
 * together never run the same migration twice. Returns the names of the applied migrations.
 */
export async function runMigrations(url: string, schema: DatabaseSchema): Promise<string[]> {
  const dataSource = new DataSource({ ...dataSourceOptions(url, schema), extra: { max: 2 } });
  await dataSource.initialize();
  try {
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
