import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/core';
import { databaseSchema } from '../db/schema';
import { createTestDatabase } from './support/database';

describe('Schema', () => {
  it('has no difference between the entities and the committed migrations', async () => {
    const db = await createTestDatabase();
    const dataSource = new DataSource(dataSourceOptions(db.url, databaseSchema));
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
    const dataSource = new DataSource(dataSourceOptions(db.url, databaseSchema));
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
        '(funnel_id, updated_at NULLS FIRST, id)',
      ]);
    } finally {
      await dataSource.destroy();
      await db.drop();
    }
  });

  it('moves existing events to the (funnel, type, time) key and fills their edge columns, and reverts', async () => {
    const db = await createTestDatabase();
    const dataSource = new DataSource(dataSourceOptions(db.url, databaseSchema));
    try {
      await dataSource.initialize();
      // Back to the schema before the migration, with one event of each kind stored there.
      await undoThrough(dataSource, 'EventEdgeColumns1795400000000');
      expect(await primaryKey(dataSource)).toBe('PRIMARY KEY (funnel_id, occurred_at, event_id)');
      await dataSource.query(
        `CREATE TABLE metric_events_p2026_05 PARTITION OF metric_events
         FOR VALUES FROM ('2026-05-01T00:00:00Z') TO ('2026-06-01T00:00:00Z')`,
      );
      await dataSource.query(
        `INSERT INTO metric_events (funnel_id, occurred_at, event_id, session_id, type, payload) VALUES
         (gen_random_uuid(), '2026-05-10T10:00:00Z', gen_random_uuid(), 's', 'page_view', '{"pageSlug":"start","timeOnPageMs":4000}'),
         (gen_random_uuid(), '2026-05-10T10:00:01Z', gen_random_uuid(), 's', 'button_click', '{"pageSlug":"start","buttonId":"cta","buttonLabel":"Go"}'),
         (gen_random_uuid(), '2026-05-10T10:00:02Z', gen_random_uuid(), 's', 'conversion', '{}')`,
      );
      await dataSource.runMigrations();
      expect(await primaryKey(dataSource)).toBe('PRIMARY KEY (funnel_id, type, occurred_at, event_id)');
      expect(
        await dataSource.query(
          'SELECT type, key, button_label, time_on_page_ms FROM metric_events ORDER BY occurred_at',
        ),
      ).toEqual([
        { type: 'page_view', key: 'start', button_label: null, time_on_page_ms: 4000 },
        { type: 'button_click', key: 'cta', button_label: 'Go', time_on_page_ms: null },
        { type: 'conversion', key: null, button_label: null, time_on_page_ms: null },
      ]);
      await undoThrough(dataSource, 'EventEdgeColumns1795400000000');
      expect(await primaryKey(dataSource)).toBe('PRIMARY KEY (funnel_id, occurred_at, event_id)');
      expect(await dataSource.query('SELECT count(*)::int AS n FROM metric_events')).toEqual([{ n: 3 }]);
    } finally {
      await dataSource.destroy();
      await db.drop();
    }
  });
});

/** Reverts migrations, newest first, up to and including the named one. */
async function undoThrough(dataSource: DataSource, name: string): Promise<void> {
  for (;;) {
    const [last]: { name: string }[] = await dataSource.query(
      'SELECT name FROM migrations ORDER BY id DESC LIMIT 1',
    );
    await dataSource.undoLastMigration();
    if (last.name === name) return;
  }
}

async function primaryKey(dataSource: DataSource): Promise<string> {
  const [row]: { def: string }[] = await dataSource.query(
    `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'metric_events'::regclass AND contype = 'p'`,
  );
  return row.def;
}
