import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ChangeNotifications, runMigrations } from '@app/core';
import { databaseSchema } from '../db/schema';
import { startTestApp, TestApp } from './support/app';
import { eventually } from './support/webhook-receiver';
import { createTestDatabase } from './support/database';
import { createTenant, TenantFixture } from './support/factories';
import { Reply, httpClient } from './support/http-client';
import { startStoppablePostgres, StoppablePostgres } from './support/stoppable-postgres';
import { startTokenIssuer, TestTokenIssuer } from './support/token-issuer';

jest.setTimeout(180_000);

const AUDIENCE = 'https://api.funnel.example';
const NAMESPACE = 'https://funnel.example';
const UNAVAILABLE = { error: 'Service unavailable', status: 503 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgreSQL outages answer 503, and the service recovers by itself', () => {
  describe('the server stopped under load', () => {
    let issuer: TestTokenIssuer;
    let pg: StoppablePostgres;
    let t: TestApp;
    let acme: TenantFixture;
    let token: string;

    beforeAll(async () => {
      issuer = await startTokenIssuer({ audience: AUDIENCE });
      pg = await startStoppablePostgres();
      await runMigrations(pg.url, databaseSchema);
      t = await startTestApp(
        {
          IDP_URL: issuer.url,
          OAUTH_CLIENT_ID: 'shared-client-id',
          OAUTH_AUDIENCE: AUDIENCE,
          OAUTH_CLAIM_NAMESPACE: NAMESPACE,
          AUTOMATION_WORKER_ENABLED: 'false',
          DATABASE_POOL_TIMEOUT_MS: '1000',
        },
        pg.url,
      );
      acme = await createTenant(t.app);
      token = await issuer.sign({
        [`${NAMESPACE}/user_metadata`]: { companyId: acme.companyId, subscriptionId: 's' },
      });
    });
    afterAll(async () => {
      await t?.close();
      await pg?.destroy();
      await issuer?.close();
    });

    const mcpListWorkspaces = () =>
      fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'list_workspaces', arguments: {} },
        }),
      });

    it('answers 503 with Retry-After while it is down, then serves the first request sent once it is back', async () => {
      const api = httpClient(t.baseUrl, acme.key);
      const contacts = `/v1/funnels/${acme.funnelId}/contacts`;
      const replies: (Reply & { sentAt: number; answeredAt: number })[] = [];
      let running = true;
      let n = 0;
      // Four clients reading and writing without pause, as traffic would.
      const client = async () => {
        while (running) {
          const sentAt = Date.now();
          const reply =
            ++n % 3 === 0
              ? await api.post(contacts, { email: `load-${n}@example.com` })
              : await api.get(n % 3 === 1 ? contacts : '/v1/workspaces');
          replies.push({ ...reply, sentAt, answeredAt: Date.now() });
          await sleep(10);
        }
      };
      const clients = [client(), client(), client(), client()];
      const answered = (check: (reply: (typeof replies)[number]) => boolean, count: number) =>
        eventually(async () => replies.filter(check).length >= count, 60_000);
      await answered((r) => r.status < 300, 8);
      await pg.stop();
      const stoppedAt = Date.now();
      await answered((r) => r.sentAt > stoppedAt + 100, 6);

      const mcp = await mcpListWorkspaces();
      const mcpBody = (await mcp.json()) as { id: number; error?: { code: number; message: string } };
      // A page's beacon, answered ahead of Express: its funnel is read (none in memory) and cannot be.
      const beacon = await fetch(`${t.baseUrl}/v1/funnels/${randomUUID()}/collect`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://shop.example' },
        body: JSON.stringify({ events: [] }),
      });

      const restartingAt = Date.now();
      await pg.start();
      const returnedAt = Date.now();
      await answered((r) => r.sentAt >= returnedAt, 4);
      running = false;
      await Promise.all(clients);

      // Sent while it was down and answered before it started again: a request waiting for a
      // connection across the restart may be served.
      const down = replies.filter((r) => r.sentAt > stoppedAt + 100 && r.answeredAt < restartingAt);
      expect(down.length).toBeGreaterThan(5);
      expect(new Set(down.map((r) => r.status))).toEqual(new Set([503]));
      expect(down.every((r) => r.headers.get('retry-after') === '1')).toBe(true);
      expect(down[0].body).toEqual(UNAVAILABLE);
      expect(replies.filter((r) => r.status >= 500 && r.status !== 503)).toEqual([]);

      expect([beacon.status, beacon.headers.get('retry-after'), await beacon.json()]).toEqual([
        503,
        '1',
        UNAVAILABLE,
      ]);
      expect(mcp.headers.get('retry-after')).toBe('1');
      expect(mcpBody).toMatchObject({ id: 7, error: { code: -32003, message: 'Service unavailable' } });

      // Served again without a restart of the service, from the first request sent once it is back.
      const afterReturn = replies.filter((r) => r.sentAt >= returnedAt).sort((x, y) => x.sentAt - y.sentAt);
      expect(afterReturn.length).toBeGreaterThan(0);
      expect(afterReturn[0].status).toBeLessThan(300);
      expect((await api.get(contacts)).status).toBe(200);
      expect((await (await mcpListWorkspaces()).json()) as object).toHaveProperty('result');
    });
  });

  describe('statements past DATABASE_STATEMENT_TIMEOUT_MS and a pool with no free connection', () => {
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let t: TestApp;
    let acme: TenantFixture;

    beforeAll(async () => {
      db = await createTestDatabase();
      t = await startTestApp(
        {
          AUTOMATION_WORKER_ENABLED: 'false',
          DATABASE_STATEMENT_TIMEOUT_MS: '600',
          DATABASE_POOL_TIMEOUT_MS: '300',
        },
        db.url,
      );
      acme = await createTenant(t.app);
    });
    afterAll(async () => {
      await t?.close();
      await db?.drop();
    });

    it('answers 503 with Retry-After instead of waiting, and serves again once the lock is gone', async () => {
      const api = httpClient(t.baseUrl, acme.key);
      const contacts = `/v1/funnels/${acme.funnelId}/contacts`;
      expect((await api.post(contacts, { email: 'ada@example.com' })).status).toBe(201);
      expect((await api.get(contacts)).status).toBe(200);
      // Another session holds the contacts table: every read of it waits on the lock.
      const locker = new Client({ connectionString: db.url });
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE contacts IN ACCESS EXCLUSIVE MODE');
      try {
        // More requests than the pool (10) has connections: the rest wait at most the pool timeout.
        // The lock is held until all have answered, so each answer is a bound that fired.
        const replies = await Promise.all(Array.from({ length: 16 }, () => api.get(contacts)));
        expect(replies.map((r) => r.status)).toEqual(Array(16).fill(503));
        expect(replies.every((r) => r.headers.get('retry-after') === '1')).toBe(true);
        expect(replies[0].body).toEqual(UNAVAILABLE);
      } finally {
        await locker.query('ROLLBACK');
        await locker.end();
      }
      expect((await api.get(contacts)).status).toBe(200);
    });
  });

  describe('a frozen server (it accepts nothing and answers nothing)', () => {
    let pg: StoppablePostgres;
    let t: TestApp;
    let acme: TenantFixture;
    // The client-side bound on a statement is this plus a second (query_timeout). Timers may fire
    // late on a busy machine, never early: a wait of two bounds takes at least TWO_BOUNDS_MS.
    const STATEMENT_MS = 2000;
    const BOUND_MS = STATEMENT_MS + 1000;
    const TWO_BOUNDS_MS = 2 * (BOUND_MS - 100);

    beforeAll(async () => {
      pg = await startStoppablePostgres();
      await runMigrations(pg.url, databaseSchema);
      t = await startTestApp(
        {
          AUTOMATION_WORKER_ENABLED: 'false',
          SEGMENT_FOLD_POLL_MS: '3600000',
          DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
          DATABASE_POOL_TIMEOUT_MS: '1000',
        },
        pg.url,
      );
      acme = await createTenant(t.app);
    });
    afterAll(async () => {
      pg?.thaw();
      await t?.close();
      await pg?.destroy();
    });

    it('answers writes 503 once the bound has passed, stores nothing of them, and serves again once it runs', async () => {
      const api = httpClient(t.baseUrl, acme.key);
      const events = `/v1/funnels/${acme.funnelId}/events`;
      const contacts = `/v1/funnels/${acme.funnelId}/contacts`;
      const batch = (sessionId: string) => ({
        events: [
          {
            type: 'session_start',
            sessionId,
            occurredAt: new Date(Date.now() - 60_000).toISOString(),
            visitorId: 'v',
            device: 'mobile',
          },
        ],
      });
      // The key cached (once the process receives change notifications, which keep it right)
      // and connections in the pool, then the server freezes under them.
      expect((await api.get('/v1/workspaces')).status).toBe(200);
      while (!t.app.get(ChangeNotifications).listening) await sleep(20);
      expect((await api.post(events, batch('before'))).status).toBe(202);
      expect((await api.post(contacts, { email: 'before@example.com' })).status).toBe(201);
      pg.freeze();
      try {
        for (const send of [
          () => api.post(events, batch('frozen')),
          () => api.post(contacts, { email: 'f@example.com' }),
        ]) {
          const started = Date.now();
          const reply = await send();
          const took = Date.now() - started;
          expect(reply.status).toBe(503);
          expect(reply.body).toEqual(UNAVAILABLE);
          // One bound (the statement's), not two.
          expect(took).toBeGreaterThanOrEqual(BOUND_MS - 100);
          expect(took).toBeLessThan(TWO_BOUNDS_MS);
        }
      } finally {
        pg.thaw();
      }
      expect((await api.post(events, batch('after'))).status).toBe(202);
      expect((await api.post(contacts, { email: 'after@example.com' })).status).toBe(201);
      // What was sent while frozen was not stored: each transaction rolled back with its connection.
      const list = await api.get(`${contacts}?limit=100`);
      const emails = (list.body as { data: { email: string }[] }).data.map((c) => c.email).sort();
      expect(emails).toEqual(['after@example.com', 'before@example.com']);
    });

    it('drops a connection whose statement went unanswered, so its ROLLBACK fails at once instead of waiting again', async () => {
      const runner = t.app.get(DataSource).createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      pg.freeze();
      try {
        let started = Date.now();
        await expect(runner.query('SELECT 1')).rejects.toThrow('Query read timeout');
        expect(Date.now() - started).toBeGreaterThanOrEqual(BOUND_MS - 100);
        // Without the drop, the ROLLBACK queued behind the unanswered statement waits the bound again.
        started = Date.now();
        await runner.rollbackTransaction().catch(() => undefined);
        expect(Date.now() - started).toBeLessThan(BOUND_MS - 100);
      } finally {
        await runner.release();
        pg.thaw();
      }
      const [row]: { one: number }[] = await t.app.get(DataSource).query('SELECT 1 AS one');
      expect(row.one).toBe(1);
    });
  });
});
