import { Client } from 'pg';
import { API_KEY_CACHE_TTL_MS, ApiKeyLookup, ApiKeysService, hashKey } from '@app/auth';
import { ChangeNotifications } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { createTenant, TenantFixture } from './support/factories';
import { startTestApp, TestApp } from './support/app';

jest.setTimeout(60_000);

// A change committed anywhere is seen by every replica once PostgreSQL has delivered its
// notification, which takes milliseconds. Seen within a third of the caches' lifetime (a minute,
// the same for keys, funnels and workspace lists), it came through the notification, not the
// expiry of what the replica read just before: the bound proves that on a busy machine too.
const BOUND_MS = API_KEY_CACHE_TTL_MS / 3;

/** The repository method a replica calls to record a key's use. */
interface Recorder {
  recordUse(id: string, intervalMs: number): Promise<void>;
}

describe('API keys and funnels kept in memory', () => {
  let a: TestApp;
  let b: TestApp;
  let sql: Client;
  let tenant: TenantFixture;

  beforeAll(async () => {
    a = await startTestApp();
    // A second replica on the same database.
    b = await startTestApp({}, a.databaseUrl);
    sql = new Client({ connectionString: a.databaseUrl });
    await sql.connect();
    tenant = await createTenant(a.app);
  });

  afterAll(async () => {
    await sql.end();
    await b.app.close();
    await a.close();
  });

  const get = (app: TestApp, path: string, key: string) =>
    fetch(`${app.baseUrl}${path}`, { headers: { 'x-service-api-key': key } });

  /** The status every replica answers once they agree, or the last one seen after the bound. */
  async function settledStatus(path: string, key: string, expected: number): Promise<number[]> {
    const deadline = performance.now() + BOUND_MS;
    for (;;) {
      const statuses = [(await get(a, path, key)).status, (await get(b, path, key)).status];
      if (statuses.every((s) => s === expected) || performance.now() > deadline) return statuses;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('refuses a key revoked by another writer on every replica within the bound', async () => {
    const key = await tenant.keyFor('crm:read');
    expect([
      (await get(a, '/v1/workspaces', key)).status,
      (await get(b, '/v1/workspaces', key)).status,
    ]).toEqual([200, 200]);
    await sql.query('UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1', [hashKey(key)]);
    expect(await settledStatus('/v1/workspaces', key, 401)).toEqual([401, 401]);
    expect(await (await get(b, '/v1/workspaces', key)).json()).toEqual({
      error: 'Invalid or unauthorized API key',
      status: 401,
    });
  });

  it('answers 404 for a funnel deleted by another writer on every replica within the bound', async () => {
    const other = await createTenant(a.app);
    const path = `/v1/funnels/${other.funnelId}/contacts`;
    expect([(await get(a, path, other.key)).status, (await get(b, path, other.key)).status]).toEqual([
      200, 200,
    ]);
    await sql.query('DELETE FROM funnels WHERE id = $1', [other.funnelId]);
    expect(await settledStatus(path, other.key, 404)).toEqual([404, 404]);
  });

  /** The workspace list every replica answers once they agree, or the last seen after the bound. */
  async function settledList(key: string, expected: unknown): Promise<unknown[]> {
    const deadline = performance.now() + BOUND_MS;
    for (;;) {
      const lists = [
        await (await get(a, '/v1/workspaces', key)).json(),
        await (await get(b, '/v1/workspaces', key)).json(),
      ];
      if (lists.every((l) => JSON.stringify(l) === JSON.stringify(expected)) || performance.now() > deadline)
        return lists;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("shows workspaces and funnels changed by another writer in every replica's list within the bound", async () => {
    const other = await createTenant(a.app);
    const list = async () => (await get(a, '/v1/workspaces', other.key)).json();
    const before = (await list()) as { data: { id: string; name: string; campaigns: { name: string }[] }[] };
    expect((await get(b, '/v1/workspaces', other.key)).status).toBe(200);
    await sql.query(`UPDATE funnels SET name = 'Renamed', status = 'offline' WHERE id = $1`, [
      other.funnelId,
    ]);
    const renamed = structuredClone(before);
    Object.assign(renamed.data[0].campaigns[0], { name: 'Renamed', status: 'offline' });
    expect(await settledList(other.key, renamed)).toEqual([renamed, renamed]);
    await sql.query(`UPDATE workspaces SET name = 'Sales' WHERE id = $1`, [other.workspaceId]);
    renamed.data[0].name = 'Sales';
    expect(await settledList(other.key, renamed)).toEqual([renamed, renamed]);
    await sql.query(`INSERT INTO workspaces (company_id, name) VALUES ($1, 'Second')`, [other.companyId]);
    await sql.query('DELETE FROM funnels WHERE id = $1', [other.funnelId]);
    const [seen] = (await settledList(other.key, null)) as {
      data: { name: string; campaigns: unknown[] }[];
    }[];
    expect(seen.data.map((w) => [w.name, w.campaigns.length])).toEqual([
      ['Sales', 0],
      ['Second', 0],
    ]);
  });

  it('shows a funnel this replica created in its next list, without waiting', async () => {
    const other = await createTenant(a.app);
    const campaigns = async () =>
      ((await (await get(a, '/v1/workspaces', other.key)).json()) as { data: { campaigns: unknown[] }[] })
        .data[0].campaigns;
    expect(await campaigns()).toHaveLength(1);
    await a.app.get(FunnelsService).create({ workspaceId: other.workspaceId, name: 'Second funnel' });
    expect(await campaigns()).toHaveLength(2);
  });

  it('answers 401 "API key expired" once a key passes its expiry', async () => {
    const { key, expiresAt } = await a.app
      .get(ApiKeysService)
      .create(tenant.companyId, ['crm:read'], 'short', { expiresInMs: 5_000 });
    expect(Date.parse(expiresAt!) - Date.now()).toBeGreaterThan(0);
    expect((await get(b, '/v1/workspaces', key)).status).toBe(200);
    while (Date.now() <= Date.parse(expiresAt!)) await new Promise((resolve) => setTimeout(resolve, 50));
    const res = await get(b, '/v1/workspaces', key);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'API key expired', status: 401 });
  });

  it('sees an expiry set by another writer on every replica within the bound', async () => {
    const key = await tenant.keyFor('crm:read');
    expect((await get(a, '/v1/workspaces', key)).status).toBe(200);
    await sql.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE key_hash = $1", [
      hashKey(key),
    ]);
    expect(await settledStatus('/v1/workspaces', key, 401)).toEqual([401, 401]);
    expect(await (await get(a, '/v1/workspaces', key)).json()).toEqual({
      error: 'API key expired',
      status: 401,
    });
  });

  it('reads through while notifications are lost, so a change made meanwhile is not missed', async () => {
    const key = await tenant.keyFor('crm:read');
    expect((await get(a, '/v1/workspaces', key)).status).toBe(200);
    const notifications = a.app.get(ChangeNotifications);
    await sql.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = 'funnel-crm-listen' AND datname = current_database()`,
    );
    const deadline = performance.now() + BOUND_MS;
    while (notifications.listening && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(notifications.listening).toBe(false);
    // Committed while no replica listens: no notification reaches them.
    await sql.query('UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1', [hashKey(key)]);
    expect((await get(a, '/v1/workspaces', key)).status).toBe(401);
    expect((await get(b, '/v1/workspaces', key)).status).toBe(401);
  });

  it('records lastUsedAt after a request, at most once a minute', async () => {
    const { id, key } = await a.app.get(ApiKeysService).create(tenant.companyId, ['crm:read'], 'usage');
    const lastUsed = async () =>
      (await a.app.get(ApiKeysService).list(tenant.companyId)).find((k) => k.id === id)!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    // The writes each replica starts after a request, so that the test can wait for them to end.
    const writes: Promise<void>[] = [];
    for (const replica of [a, b]) {
      const repository = (replica.app.get(ApiKeyLookup) as unknown as { keys: Recorder }).keys;
      const recordUse = repository.recordUse.bind(repository);
      jest.spyOn(repository, 'recordUse').mockImplementation((...args) => {
        const write = recordUse(...args);
        writes.push(write);
        return write;
      });
    }
    const requested = Date.now();
    for (let i = 0; i < 5; i++) expect((await get(i % 2 ? a : b, '/v1/workspaces', key)).status).toBe(200);
    const deadline = performance.now() + BOUND_MS;
    while (!(await lastUsed()) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const first = await lastUsed();
    // Stamped by the database during the requests (its clock and this one are the machine's).
    expect(Date.parse(first!)).toBeGreaterThanOrEqual(requested - 1_000);
    expect(Date.parse(first!)).toBeLessThanOrEqual(Date.now());
    for (let i = 0; i < 5; i++) expect((await get(i % 2 ? a : b, '/v1/workspaces', key)).status).toBe(200);
    // Every write a replica started has ended: none moved the time within the minute.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(writes);
    expect(await lastUsed()).toBe(first);
  });
});
