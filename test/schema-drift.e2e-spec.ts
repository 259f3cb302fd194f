import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/core';
import { createTestDatabase } from './support/database';

describe('Schema', () => {
  it('has no difference between the entities and the committed migrations', async () => {
    const db = await createTestDatabase();
    const dataSource = new DataSource(dataSourceOptions(db.url));
    try {
      await dataSource.initialize();
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
      expect(await dataSource.showMigrations()).toBe(false);
    } finally {
      await dataSource.destroy();
      await db.drop();
    }
  });

  it('backs every contact sort order with an index', async () => {
    const db = await createTestDatabase();
    const dataSource = new DataSource(dataSourceOptions(db.url));
    try {
      await dataSource.initialize();
      const rows: { indexdef: string }[] = await dataSource.query(
        `SELECT indexdef FROM pg_indexes WHERE tablename = 'contacts' AND indexname LIKE 'idx_contacts_sort_%'`,
      );
      expect(rows.map((r) => r.indexdef.replace(/^.* USING btree /, '')).sort()).toEqual([
        '(funnel_id, converted_at NULLS FIRST, id)',
        '(funnel_id, email NULLS FIRST, id)',
        '(funnel_id, first_name NULLS FIRST, id)',
        '(funnel_id, last_name NULLS FIRST, id)',
      ]);
    } finally {
      await dataSource.destroy();
      await db.drop();
    }
  });
});
