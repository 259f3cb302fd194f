import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createFunnelCrmClient, RetryEvent } from '@funnel-crm/client';
import { runMigrations } from '@app/core';
import { databaseSchema } from '../db/schema';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { nodeAtLeast } from './support/node-runtime';
import { ROOT } from './support/processes';
import { startStoppablePostgres, StoppablePostgres } from './support/stoppable-postgres';

jest.setTimeout(180_000);

const run = promisify(execFile);
type PackageJson = { scripts: Record<string, string> };
const CONTACTS = '/v1/funnels/{funnelId}/contacts';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('TypeScript client (clients/typescript)', () => {
  it('has the schema.d.ts that `npm run client:generate` makes of openapi.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-schema-'));
    try {
      const cli = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
      // The arguments of `npm run client:generate`, into a scratch file.
      const args = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson).scripts[
        'client:generate'
      ]
        .split(' ')
        .slice(1)
        .map((arg) => (arg.endsWith('schema.d.ts') ? join(dir, 'schema.d.ts') : arg));
      await run(nodeAtLeast(22), [cli, ...args], { cwd: ROOT });
      const generated = readFileSync(join(dir, 'schema.d.ts'), 'utf8');
      const committed = readFileSync(join(ROOT, 'clients', 'typescript', 'src', 'schema.d.ts'), 'utf8');
      if (generated !== committed) {
        throw new Error(
          'clients/typescript/src/schema.d.ts is out of date with openapi.json: run `npm run openapi:generate`',
        );
      }
      expect(generated).toContain('"/v1/funnels/{funnelId}/contacts"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('against the running service', () => {
    let t: TestApp;
    let acme: TenantFixture;
    let other: TenantFixture;

    beforeAll(async () => {
      t = await startTestApp({ AUTOMATION_WORKER_ENABLED: 'false' });
      acme = await createTenant(t.app);
      other = await createTenant(t.app);
    });
    afterAll(() => t?.close());

    it('creates a contact, lists it and reads it, with the API key set', async () => {
      const client = createFunnelCrmClient({ baseUrl: `${t.baseUrl}/`, apiKey: acme.key });
      const path = { funnelId: acme.funnelId };

      const created = await client.POST(CONTACTS, {
        params: { path },
        body: { email: 'ada@example.com', firstName: 'Ada' },
      });
      expect(created.response.status).toBe(201);
      expect(created.data?.data).toMatchObject({ email: 'ada@example.com', firstName: 'Ada' });

      const list = await client.GET(CONTACTS, { params: { path, query: { email: 'ada@example.com' } } });
      expect(list.response.status).toBe(200);
      expect(list.data?.data.map((c) => c.id)).toEqual([created.data!.data.id]);
      expect(list.data?.meta).toMatchObject({ total: 1, hasNext: false });

      const read = await client.GET(`${CONTACTS}/{contactId}`, {
        params: { path: { ...path, contactId: created.data!.data.id } },
      });
      expect(read.data?.data.email).toBe('ada@example.com');
    });

    it("hands back the error body, as for another company's funnel (404)", async () => {
      const client = createFunnelCrmClient({ baseUrl: t.baseUrl, apiKey: acme.key });
      const res = await client.GET(CONTACTS, { params: { path: { funnelId: other.funnelId } } });
      expect(res.response.status).toBe(404);
      expect(res.data).toBeUndefined();
      expect(res.error).toEqual({ error: 'Funnel not found', status: 404 });
    });
  });

  describe('under the rate limit (2 requests a minute)', () => {
    let t: TestApp;
    let acme: TenantFixture;

    beforeAll(async () => {
      t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '2', AUTOMATION_WORKER_ENABLED: 'false' });
      acme = await createTenant(t.app);
    });
    afterAll(() => t?.close());

    it('returns a 429 at once when its Retry-After is longer than maxDelayMs', async () => {
      const retries: RetryEvent[] = [];
      const client = createFunnelCrmClient({
        baseUrl: t.baseUrl,
        apiKey: acme.key,
        retry: { maxDelayMs: 500, onRetry: (r) => retries.push(r) },
      });
      expect((await client.GET('/v1/workspaces')).response.status).toBe(200);
      expect((await client.GET('/v1/workspaces')).response.status).toBe(200);
      const refused = await client.GET('/v1/workspaces');
      expect(refused.response.status).toBe(429);
      expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.error).toMatchObject({ error: 'Rate limit exceeded', status: 429 });
      expect(retries).toEqual([]);
    });

    it('waits the Retry-After of a 429 and sends the request again, a POST without Idempotency-Key included', async () => {
      const retries: RetryEvent[] = [];
      const client = createFunnelCrmClient({
        baseUrl: t.baseUrl,
        apiKey: acme.key,
        retry: { onRetry: (r) => retries.push(r) },
      });
      const startedAt = Date.now();
      const created = await client.POST(CONTACTS, {
        params: { path: { funnelId: acme.funnelId } },
        body: { email: 'limited@example.com' },
      });
      expect(created.response.status).toBe(201);
      expect(retries).toEqual([
        {
          method: 'POST',
          url: `${t.baseUrl}/v1/funnels/${acme.funnelId}/contacts`,
          attempt: 1,
          status: 429,
          delayMs: expect.any(Number),
        },
      ]);
      expect(retries[0].delayMs).toBeGreaterThanOrEqual(1000);
      expect(retries[0].delayMs).toBeLessThanOrEqual(60_000);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(retries[0].delayMs);

      // The refused attempt created nothing: one contact.
      const list = await client.GET(CONTACTS, {
        params: { path: { funnelId: acme.funnelId }, query: { email: 'limited@example.com' } },
      });
      expect(list.data?.meta.total).toBe(1);
    });
  });

  describe('through a database outage (503 with Retry-After)', () => {
    let pg: StoppablePostgres;
    let t: TestApp;
    let acme: TenantFixture;

    beforeAll(async () => {
      pg = await startStoppablePostgres();
      await runMigrations(pg.url, databaseSchema);
      t = await startTestApp(
        { AUTOMATION_WORKER_ENABLED: 'false', DATABASE_POOL_TIMEOUT_MS: '1000' },
        pg.url,
      );
      acme = await createTenant(t.app);
    });
    afterAll(async () => {
      await t?.close();
      await pg?.destroy();
    });

    /** Stops PostgreSQL, and starts it again `downMs` later; resolves once it is back. */
    async function outage(downMs: number): Promise<() => Promise<void>> {
      await pg.stop();
      const back = sleep(downMs).then(() => pg.start());
      return () => back;
    }

    const clientWith = (retries: RetryEvent[]) =>
      createFunnelCrmClient({
        baseUrl: t.baseUrl,
        apiKey: acme.key,
        retry: { maxAttempts: 20, onRetry: (r) => retries.push(r) },
      });

    it('sends a GET again after each 503 until the database is back', async () => {
      const retries: RetryEvent[] = [];
      const restarted = await outage(2000);
      const list = await clientWith(retries).GET(CONTACTS, { params: { path: { funnelId: acme.funnelId } } });
      await restarted();
      expect(list.response.status).toBe(200);
      expect(retries.length).toBeGreaterThanOrEqual(1);
      expect(retries.every((r) => r.status === 503 && r.delayMs === 1000)).toBe(true);
    });

    it('does not send a POST without Idempotency-Key again after a 503 (it may have been carried out)', async () => {
      const retries: RetryEvent[] = [];
      const restarted = await outage(1000);
      const created = await clientWith(retries).POST(CONTACTS, {
        params: { path: { funnelId: acme.funnelId } },
        body: { email: 'unsure@example.com' },
      });
      await restarted();
      expect(created.response.status).toBe(503);
      expect(created.error).toEqual({ error: 'Service unavailable', status: 503 });
      expect(retries).toEqual([]);
    });

    it('sends a POST with an Idempotency-Key again after 503s, and the contact is created once', async () => {
      const retries: RetryEvent[] = [];
      const client = clientWith(retries);
      const restarted = await outage(2000);
      const created = await client.POST(CONTACTS, {
        params: { path: { funnelId: acme.funnelId }, header: { 'Idempotency-Key': 'import-42' } },
        body: { email: 'keyed@example.com' },
      });
      await restarted();
      expect(created.response.status).toBe(201);
      expect(retries.length).toBeGreaterThanOrEqual(1);
      expect(retries.every((r) => r.status === 503)).toBe(true);
      const list = await client.GET(CONTACTS, {
        params: { path: { funnelId: acme.funnelId }, query: { email: 'keyed@example.com' } },
      });
      expect(list.data?.meta.total).toBe(1);
    });
  });
});
