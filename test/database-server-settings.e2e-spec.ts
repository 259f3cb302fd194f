import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ReadPool, SERVICE_SERVER_SETTINGS } from '@app/core';
import { startTestApp, TestApp } from './support/app';
import { createTestDatabase } from './support/database';

// docs/DEPLOYING.md: the service's connections plan without parallel workers. Sent at connect
// where the server takes startup parameters; behind a transaction pooler, set on the role, and
// the service says at boot which setting is missing.
describe("the service's server settings", () => {
  const setting = async (query: (text: string) => Promise<{ value: string }[]>) =>
    (await query("SELECT current_setting('max_parallel_workers_per_gather') AS value"))[0].value;

  describe('on a direct connection', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ DATABASE_STATEMENT_TIMEOUT_MS: '4321' });
    });
    afterAll(() => t.close());

    it('bounds every statement on the server by DATABASE_STATEMENT_TIMEOUT_MS', async () => {
      const [{ ms }] = await t.app
        .get(DataSource)
        .query("SELECT setting AS ms FROM pg_settings WHERE name = 'statement_timeout'");
      expect(ms).toBe('4321');
    });

    it('plans every statement of the API and of its reads without parallel workers', async () => {
      expect(SERVICE_SERVER_SETTINGS.max_parallel_workers_per_gather).toBe(0);
      expect(await setting((text) => t.app.get(DataSource).query(text))).toBe('0');
      expect(await setting((text) => t.app.get(ReadPool).rows(text))).toBe('0');
      // The server's own default is untouched: another client of the database still gets it.
      const other = new Client({ connectionString: t.databaseUrl });
      await other.connect();
      try {
        expect(await setting(async (text) => (await other.query(text)).rows)).not.toBe('0');
      } finally {
        await other.end();
      }
    });
  });

  describe('in transaction pooling mode, where no startup parameter is sent', () => {
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let warn: jest.SpyInstance;
    const mode = { DATABASE_POOL_MODE: 'transaction', AUTOMATION_WORKER_ENABLED: 'false' };
    const warnings = () => warn.mock.calls.map(([message]) => String(message));

    beforeAll(async () => {
      db = await createTestDatabase();
    });
    beforeEach(() => {
      warn = jest.spyOn(Logger.prototype, 'warn');
    });
    afterEach(() => warn.mockRestore());
    afterAll(() => db.drop());

    it('names each setting the role lacks, with the statement that sets it', async () => {
      const t = await startTestApp(mode, db.url);
      await t.app.close();
      expect(warnings()).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^statement_timeout is 0 ms on the server, not \d+: .*ALTER ROLE ".+" IN DATABASE ".+" SET statement_timeout = \d+$/,
          ),
          expect.stringMatching(
            /^max_parallel_workers_per_gather is \d+ on the server, not 0: .*SET max_parallel_workers_per_gather = 0$/,
          ),
        ]),
      );
    });

    it('says nothing once the database sets both', async () => {
      const sql = new Client({ connectionString: db.url });
      await sql.connect();
      const name = sql.escapeIdentifier(new URL(db.url).pathname.slice(1));
      await sql.query(`ALTER DATABASE ${name} SET statement_timeout = 5000`);
      await sql.query(`ALTER DATABASE ${name} SET max_parallel_workers_per_gather = 0`);
      await sql.end();
      const t = await startTestApp(mode, db.url);
      try {
        expect(await setting((text) => t.app.get(DataSource).query(text))).toBe('0');
      } finally {
        await t.app.close();
      }
      expect(warnings().filter((w) => / on the server, not /.test(w))).toEqual([]);
    });
  });
});
