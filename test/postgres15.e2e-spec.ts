import { Client } from 'pg';
import { runMigrations } from '@app/core';
import { propertyFitsSql } from '@app/contacts';
import { databaseSchema } from '../db/schema';
import { DebianPostgres, PG15_BIN, pg15Installed, startDebianPostgres } from './support/debian-postgres';

// A fresh cluster and every migration, on a machine shared with other suites.
jest.setTimeout(180_000);

// Texts a date property may hold: valid dates, impossible ones, and other forms.
const SAMPLES = [
  '2024-02-29',
  '2023-02-29',
  '2024-13-01',
  '2024-04-31',
  '0000-01-01',
  '9999-12-31',
  '2024-1-01',
  '24-01-01',
  '2024-01-01T00:00:00Z',
  'today',
  '',
];

/** Each sample's answer from the schema's date functions and the property rule's SQL. */
async function dateAnswers(client: Client): Promise<Record<string, unknown>[]> {
  const fits = propertyFitsSql({ type: 'date' }, 'to_jsonb(s)', () => {
    throw new Error('a date rule needs no parameter');
  });
  const { rows } = await client.query(
    `SELECT s, contact_property_date('date', to_jsonb(s))::text AS stored, ${fits} AS fits
       FROM unnest($1::text[]) WITH ORDINALITY AS t(s, i) ORDER BY i`,
    [SAMPLES],
  );
  return rows;
}

const EXPECTED = SAMPLES.map((s) => {
  const valid = ['2024-02-29', '9999-12-31'].includes(s);
  return { s, stored: valid ? s : null, fits: valid };
});

if (!pg15Installed()) console.log(`PostgreSQL 15 suite skipped: ${PG15_BIN}/postgres is not installed`);

(pg15Installed() ? describe : describe.skip)('PostgreSQL 15', () => {
  let server: DebianPostgres;
  let client: Client;

  beforeAll(async () => {
    server = await startDebianPostgres();
    await runMigrations(server.url, databaseSchema);
    client = new Client({ connectionString: server.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await server?.stop();
  });

  it('takes every migration and reads contact property dates as the service checks them', async () => {
    const [{ num }] = (await client.query("SELECT current_setting('server_version_num')::int AS num")).rows;
    expect(Math.floor(num / 10000)).toBe(15);
    expect(await dateAnswers(client)).toEqual(EXPECTED);
  });

  it('keeps a date property typed for range search through the contact triggers', async () => {
    const funnel = (
      await client.query(`WITH c AS (INSERT INTO companies (name, subscription_id) VALUES ('Pg15', 'sub_pg15') RETURNING id),
        w AS (INSERT INTO workspaces (company_id, name) SELECT id, 'W' FROM c RETURNING id)
        INSERT INTO funnels (workspace_id, company_id, name) SELECT w.id, c.id, 'F' FROM w, c RETURNING id`)
    ).rows[0].id;
    await client.query(
      `INSERT INTO contact_property_definitions (funnel_id, name, type, values_generation) VALUES ($1, 'renewal', 'date', gen_random_uuid())`,
      [funnel],
    );
    const companyId = (await client.query('SELECT id FROM companies')).rows[0].id;
    await client.query(
      `INSERT INTO contacts (funnel_id, company_id, status, properties)
       SELECT $1, $2, 'lead', jsonb_build_object('renewal', s) FROM unnest($3::text[]) s`,
      [funnel, companyId, ['2024-02-29', '2023-02-29', 'soon']],
    );
    const { rows } = await client.query(
      'SELECT date_value::text AS d FROM contact_property_values ORDER BY 1',
    );
    expect(rows).toEqual([{ d: '2024-02-29' }]);
  });
});

/** The same answers as pg_input_is_valid, which the date function stands in for, on the test server (17). */
describe('date check on the test server', () => {
  it('answers as pg_input_is_valid', async () => {
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      expect(await dateAnswers(client)).toEqual(EXPECTED);
      const { rows } = await client.query(
        `SELECT s, current_setting('server_version_num')::int >= 160000 AS has_builtin,
                (s ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' AND pg_input_is_valid(s, 'date')) AS builtin,
                iso_date_or_null(s) IS NOT NULL AS ours
           FROM unnest($1::text[]) s`,
        [SAMPLES],
      );
      expect(rows.map((row) => ({ s: row.s, has: row.has_builtin, ours: row.ours }))).toEqual(
        rows.map((row) => ({ s: row.s, has: true, ours: row.builtin })),
      );
    } finally {
      await client.end();
    }
  });
});
