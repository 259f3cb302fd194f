import { Client } from 'pg';
import { API_KEY_CACHE_TTL_MS, hashKey } from '@app/auth';
import { startTestApp, TestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient, Reply } from './support/http-client';
import { DEBIAN_PGBOUNCER, PgBouncer, PREPARED_PGBOUNCER, startPgBouncer } from './support/pgbouncer';

jest.setTimeout(120_000);

// docs/CONFIGURATION.md: with DATABASE_DIRECT_URL a revocation reaches every replica once
// PostgreSQL has delivered its notification; without it, nothing is cached and the next request
// sees it. Seen within a third of the cache's lifetime, it came through the notification, not the
// expiry of the key read just before, however busy the machine.
const BOUND_MS = API_KEY_CACHE_TTL_MS / 3;
const WINDOW = 'from=2026-03-01T00:00:00Z&to=2026-03-31T23:59:59.999Z';

// Debian's PgBouncer 1.18 keeps no prepared statement across transactions: the service sends its
// statements unnamed. PgBouncer 1.21 and later keeps them (DATABASE_POOLER_PREPARED_STATEMENTS):
// the service names them as on a direct connection, and each server connection parses them once.
describe.each([
  { pooler: "Debian's PgBouncer 1.18, statements unnamed", binary: DEBIAN_PGBOUNCER, prepared: false },
  { pooler: 'PgBouncer 1.24 keeping named statements', binary: PREPARED_PGBOUNCER, prepared: true },
])('behind $pooler in transaction pooling', ({ binary, prepared }) => {
  const mode = {
    DATABASE_POOL_MODE: 'transaction',
    DATABASE_POOLER_PREPARED_STATEMENTS: String(prepared),
    AUTOMATION_WORKER_ENABLED: 'false',
  };
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let bouncer: PgBouncer;
  // Both through the pooler: `listening` also has a direct connection for its caches, `polling` has none.
  let listening: TestApp;
  let polling: TestApp;
  let sql: Client;
  let tenant: TenantFixture;

  beforeAll(async () => {
    db = await createTestDatabase();
    bouncer = await startPgBouncer(db.url, binary);
    const pooled = bouncer.urlFor(db.url);
    listening = await startTestApp({ ...mode, DATABASE_DIRECT_URL: db.url }, pooled);
    polling = await startTestApp(mode, pooled);
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    tenant = await createTenant(listening.app);
  });

  afterAll(async () => {
    await sql?.end();
    await polling?.app.close();
    await listening?.app.close();
    await bouncer?.stop();
    await db?.drop();
  });

  it('answers a concurrent burst of reads and writes on two replicas without a 5xx', async () => {
    const apis = [httpClient(listening.baseUrl, tenant.key), httpClient(polling.baseUrl, tenant.key)];
    const contacts = `/v1/funnels/${tenant.funnelId}/contacts`;
    const seeded = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const res = await apis[i % 2].post(contacts, {
          email: `seed${i}@example.com`,
          skipAutomationTrigger: true,
        });
        expect(res.status).toBe(201);
        return res.body.data.id as string;
      }),
    );
    const requests: (() => Promise<Reply>)[] = [];
    for (let i = 0; i < 120; i++) {
      const api = apis[i % 2];
      const contact = seeded[i % seeded.length];
      const at = `2026-03-0${1 + (i % 9)}T10:00:${String(i % 60).padStart(2, '0')}Z`;
      requests.push(
        [
          () => api.get(`${contacts}?limit=20`),
          () => api.get(`${contacts}?limit=5&sortField=updatedAt&sortOrder=1`),
          () => api.get(`${contacts}/${contact}`),
          () => api.post(contacts, { email: `burst${i}@example.com`, skipAutomationTrigger: true }),
          () => api.put(`${contacts}/${contact}/values`, { fieldName: 'firstName', value: `Ada ${i}` }),
          () =>
            api.post(`/v1/funnels/${tenant.funnelId}/events`, {
              events: [
                {
                  type: 'session_start',
                  sessionId: `s${i}`,
                  occurredAt: at,
                  visitorId: `v${i}`,
                  device: 'mobile',
                },
              ],
            }),
          () => api.get(`/v1/funnels/${tenant.funnelId}/metrics/kpis/kpi_total_sessions?${WINDOW}`),
          () => api.get('/v1/workspaces'),
        ][i % 8],
      );
    }
    const before = prepared ? await bouncer.stats() : undefined;
    const replies = await Promise.all(requests.map((send) => send()));
    const failed = replies.filter((r) => r.status >= 300).map((r) => [r.status, r.body]);
    expect(failed).toEqual([]);
    // With a pooler that keeps them, the service's named statements reached it, and it prepared
    // each on a server connection once and bound it again on later runs (1.18 counts neither).
    const after = before && (await bouncer.stats());
    const reuse = before &&
      after && {
        binds: after.total_bind_count - before.total_bind_count,
        serverParses: after.total_server_parse_count - before.total_server_parse_count,
      };
    expect(
      reuse && { manyBinds: reuse.binds > 100, fewParses: reuse.serverParses < reuse.binds / 2 },
    ).toEqual(prepared ? { manyBinds: true, fewParses: true } : undefined);
    // The events of the burst were all stored and counted.
    const sessions = await apis[0].get(
      `/v1/funnels/${tenant.funnelId}/metrics/kpis/kpi_total_sessions?${WINDOW}`,
    );
    expect(sessions.body.data.value).toBe(15);
  });

  it('streams exports (COPY in the snapshot transaction) through the pooler beside other reads', async () => {
    const headers = { 'x-service-api-key': tenant.key };
    const path = `/v1/funnels/${tenant.funnelId}/contacts/export`;
    const [ndjson, csv, list] = await Promise.all([
      fetch(`${polling.baseUrl}${path}`, { headers }),
      fetch(`${listening.baseUrl}${path}?format=csv`, { headers }),
      httpClient(polling.baseUrl, tenant.key).get(`/v1/funnels/${tenant.funnelId}/contacts?limit=100`),
    ]);
    expect([ndjson.status, csv.status, list.status]).toEqual([200, 200, 200]);
    const lines = (await ndjson.text()).split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBe(list.body.meta.total);
    expect(lines.map((l) => (JSON.parse(l) as { id: string }).id).sort()).toEqual(
      (list.body.data as { id: string }[]).map((c) => c.id).sort(),
    );
    expect((await csv.text()).trimEnd().split('\r\n')).toHaveLength(lines.length + 1);
  });

  it('refuses a revoked key on both replicas within the bound', async () => {
    const key = await tenant.keyFor('crm:read');
    const get = (app: TestApp) => httpClient(app.baseUrl, key).get('/v1/workspaces');
    expect([(await get(listening)).status, (await get(polling)).status]).toEqual([200, 200]);
    // Revoked by another writer (plain SQL, as an operator's script would).
    await sql.query('UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1', [hashKey(key)]);
    const revokedAt = performance.now();
    // Nothing cached without a direct connection: the very next request is refused.
    expect((await get(polling)).status).toBe(401);
    let status = (await get(listening)).status;
    while (status !== 401 && performance.now() - revokedAt < BOUND_MS) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await get(listening)).status;
    }
    expect([status, (await get(polling)).status]).toEqual([401, 401]);
  });

  it('answers 503 for a statement past the timeout set on the database, not on the connection', async () => {
    const slow = await createTestDatabase();
    const direct = new Client({ connectionString: slow.url });
    await direct.connect();
    const name = new URL(slow.url).pathname.slice(1);
    await direct.query(`ALTER DATABASE ${direct.escapeIdentifier(name)} SET statement_timeout = 600`);
    const app = await startTestApp(
      { ...mode, DATABASE_STATEMENT_TIMEOUT_MS: '30000' },
      bouncer.urlFor(slow.url),
    );
    try {
      const other = await createTenant(app.app);
      const api = httpClient(app.baseUrl, other.key);
      const contacts = `/v1/funnels/${other.funnelId}/contacts`;
      expect((await api.get(contacts)).status).toBe(200);
      await direct.query('BEGIN');
      await direct.query('LOCK TABLE contacts IN ACCESS EXCLUSIVE MODE');
      const started = performance.now();
      const res = await api.get(contacts);
      // Cancelled by the server (57014) after 600 ms: answered before the client-side bound (31 s)
      // could have cut it, however busy the machine.
      expect([res.status, res.headers.get('retry-after')]).toEqual([503, '1']);
      expect(performance.now() - started).toBeLessThan(30_000);
      await direct.query('ROLLBACK');
      expect((await api.get(contacts)).status).toBe(200);
    } finally {
      await direct.end();
      await app.app.close();
      await slow.drop();
    }
  });
});
