import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/core';
import { databaseSchema } from '../db/schema';
import { createTestDatabase } from './support/database';

const MIGRATION = 'CitusDistributionKeys1796412000000';

describe('The CitusDistributionKeys migration', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataSource: DataSource;
  const q = <T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> =>
    dataSource.query(sql, params);

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = new DataSource(dataSourceOptions(db.url, databaseSchema));
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  /** The definitions of a table's primary key and foreign keys. */
  const keys = async (table: string): Promise<string[]> =>
    (
      await q<{ def: string }>(
        `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
         WHERE conrelid = $1::regclass AND contype IN ('p', 'f') ORDER BY contype DESC, 1`,
        [table],
      )
    ).map((r) => r.def);

  /** Reverts the migrations after this one, then this one (later ones may depend on its keys). */
  const undoThroughMigration = async (): Promise<void> => {
    const names = async () =>
      (await q<{ name: string }>('SELECT name FROM migrations ORDER BY id DESC')).map((m) => m.name);
    expect(await names()).toContain(MIGRATION);
    while ((await names())[0] !== MIGRATION) await dataSource.undoLastMigration();
    await dataSource.undoLastMigration();
    expect(await names()).not.toContain(MIGRATION);
  };

  it('moves a populated database to funnel-wide keys, filling the value history’s funnel, and back', async () => {
    await undoThroughMigration();
    expect(await keys('contact_messages')).toEqual([
      'PRIMARY KEY (id)',
      'FOREIGN KEY (contact_id) REFERENCES contacts(id) ON DELETE CASCADE',
    ]);

    // Two funnels with a contact each, its history and messages, and a subscription's automation with a run.
    const [{ id: company }] = await q<{ id: string }>(
      `INSERT INTO companies (name, subscription_id) VALUES ('Acme', 'sub') RETURNING id`,
    );
    const [{ id: workspace }] = await q<{ id: string }>(
      `INSERT INTO workspaces (company_id, name) VALUES ($1, 'Main') RETURNING id`,
      [company],
    );
    const funnels = await q<{ id: string }>(
      `INSERT INTO funnels (workspace_id, company_id, name) VALUES ($1, $2, 'A'), ($1, $2, 'B') RETURNING id`,
      [workspace, company],
    );
    const contacts: string[] = [];
    for (const { id: funnel } of funnels) {
      const [{ id }] = await q<{ id: string }>(
        `INSERT INTO contacts (funnel_id, company_id, status, email) VALUES ($1, $2, 'lead', 'a@example.com') RETURNING id`,
        [funnel, company],
      );
      contacts.push(id);
      await q(
        `INSERT INTO contact_field_values (contact_id, field_name, value) VALUES ($1, 'status', 'lead'), ($1, 'city', 'Berlin')`,
        [id],
      );
      await q(
        `INSERT INTO contact_messages (contact_id, funnel_id, name, type, content) VALUES ($1, $2, 'Welcome', 'email', 'Hi')`,
        [id, funnel],
      );
    }
    const [funnelA, funnelB] = funnels.map((f) => f.id);
    // A message stored under another funnel than its contact's takes the contact's.
    await q(
      `INSERT INTO contact_messages (contact_id, funnel_id, name, type, content) VALUES ($1, $2, 'Stray', 'sms', 'Hi')`,
      [contacts[0], funnelB],
    );
    await q(
      `INSERT INTO webhook_subscriptions (id, funnel_id, company_id, target_url, events)
       VALUES ('00000000-0000-4000-8000-000000000001', $1, $2, 'https://example.com/hook', '{contact.created}')`,
      [funnelA, company],
    );
    await q(
      `INSERT INTO automations (id, funnel_id, company_id, name, trigger, action, subscription_id)
       VALUES ('00000000-0000-4000-8000-000000000002', $1, $2, 'Hook', 'contact.created', 'webhook',
               '00000000-0000-4000-8000-000000000001')`,
      [funnelA, company],
    );
    await q(
      `INSERT INTO automation_runs (automation_id, funnel_id, contact_id, event, payload)
       VALUES ('00000000-0000-4000-8000-000000000002', $1, $2, 'contact.created', '{}')`,
      [funnelA, contacts[0]],
    );

    await dataSource.runMigrations();

    expect(
      await q(
        `SELECT v.funnel_id = c.funnel_id AS same, count(*)::int AS n
         FROM contact_field_values v JOIN contacts c ON c.id = v.contact_id GROUP BY 1`,
      ),
    ).toEqual([{ same: true, n: 4 }]);
    expect(await q(`SELECT funnel_id FROM contact_messages WHERE name = 'Stray'`)).toEqual([
      { funnel_id: funnelA },
    ]);
    expect(await keys('contacts')).toEqual([
      'PRIMARY KEY (id, funnel_id)',
      'FOREIGN KEY (funnel_id) REFERENCES funnels(id) ON DELETE CASCADE',
    ]);
    expect(await keys('contact_field_values')).toEqual([
      'PRIMARY KEY (id, funnel_id)',
      'FOREIGN KEY (funnel_id, contact_id) REFERENCES contacts(funnel_id, id) ON DELETE CASCADE',
    ]);
    expect(await keys('automation_runs')).toEqual([
      'PRIMARY KEY (id, funnel_id)',
      'FOREIGN KEY (funnel_id, automation_id) REFERENCES automations(funnel_id, id) ON DELETE CASCADE',
    ]);
    // The wider foreign keys refuse a row of another funnel than its parent's, and still cascade.
    await expect(
      q(
        `INSERT INTO contact_messages (contact_id, funnel_id, name, type, content) VALUES ($1, $2, 'x', 'sms', 'x')`,
        [contacts[0], funnelB],
      ),
    ).rejects.toThrow(/foreign key/);
    await q('DELETE FROM webhook_subscriptions WHERE funnel_id = $1', [funnelA]);
    expect(await q('SELECT count(*)::int AS n FROM automation_runs')).toEqual([{ n: 0 }]);
    await q('DELETE FROM contacts WHERE funnel_id = $1 AND id = $2', [funnelA, contacts[0]]);
    expect(await q('SELECT funnel_id FROM contact_field_values GROUP BY 1')).toEqual([
      { funnel_id: funnelB },
    ]);
    expect(await q('SELECT funnel_id FROM contact_messages')).toEqual([{ funnel_id: funnelB }]);

    await undoThroughMigration();
    expect(await keys('contact_field_values')).toEqual([
      'PRIMARY KEY (id)',
      'FOREIGN KEY (contact_id) REFERENCES contacts(id) ON DELETE CASCADE',
    ]);
    expect(await keys('automations')).toEqual([
      'PRIMARY KEY (id)',
      'FOREIGN KEY (funnel_id) REFERENCES funnels(id) ON DELETE CASCADE',
      'FOREIGN KEY (subscription_id) REFERENCES webhook_subscriptions(id) ON DELETE CASCADE',
    ]);
    expect(await q('SELECT count(*)::int AS n FROM contact_field_values')).toEqual([{ n: 2 }]);
    await dataSource.runMigrations();
    expect(await keys('contacts')).toEqual([
      'PRIMARY KEY (id, funnel_id)',
      'FOREIGN KEY (funnel_id) REFERENCES funnels(id) ON DELETE CASCADE',
    ]);
  });
});
