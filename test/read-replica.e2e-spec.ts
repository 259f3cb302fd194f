import { MetricsServer, ReadPool, type SnapshotRows } from '@app/core';
import { startTestApp, TestApp } from './support/app';
import { insertContacts } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { scrape, sumOf } from './support/prometheus';
import { startStreamingReplica, StreamingReplica } from './support/streaming-replica';

const MAX_LAG_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Reads on a streaming replica (DATABASE_READ_URL)', () => {
  let pg: StreamingReplica;
  let t: TestApp;
  let acme: TenantFixture;
  let beta: TenantFixture;
  let metricsPort: number;

  const metric = async (name: string, labels: Record<string, string> = {}) =>
    sumOf(await scrape(metricsPort), name, labels);
  const readsOn = (server: 'primary' | 'replica') => metric('db_read_queries_total', { server });
  /** Waits until the replica holds what the primary has committed and reads go to it again. */
  const caughtUp = async () => {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      const lag = await metric('db_replica_lag_seconds');
      if (lag >= 0 && lag < 0.5 && (await metric('db_replica_up')) === 1) return;
      await sleep(100);
    }
    throw new Error('the replica did not catch up');
  };
  const listOf = (tenant: TenantFixture) =>
    httpClient(t.baseUrl, tenant.key).get(`/v1/funnels/${tenant.funnelId}/contacts?limit=100`);
  const emails = (reply: { body: { data: { email: string }[] } }) => reply.body.data.map((c) => c.email);
  const inRecovery = async (rows: SnapshotRows) =>
    (await rows<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby'))[0].standby;

  beforeAll(async () => {
    pg = await startStreamingReplica();
    t = await startTestApp(
      { DATABASE_READ_URL: pg.replicaUrl, DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS) },
      pg.primaryUrl,
    );
    acme = await createTenant(t.app);
    beta = await createTenant(t.app);
    metricsPort = t.app.get(MetricsServer).port!;
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await pg?.destroy();
  });

  it('answers list, single, workspace and metrics reads from the replica', async () => {
    const [contact] = await insertContacts(t.app, acme, [{ email: 'ada@example.com' }]);
    await caughtUp();
    const primaryBefore = await readsOn('primary');
    const replicaBefore = await readsOn('replica');
    const api = httpClient(t.baseUrl, acme.key);
    const metrics = `/v1/funnels/${acme.funnelId}/metrics`;
    const replies = [
      await listOf(acme),
      await api.get(`/v1/funnels/${acme.funnelId}/contacts/${contact.id}`),
      await api.get('/v1/workspaces'),
      await api.get(`${metrics}/kpis/kpi_new_contacts?from=2026-01-01&to=2026-01-31`),
      await api.get(`${metrics}/charts/chart_visitor_devices?from=2026-01-01&to=2026-01-31`),
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(emails(replies[0])).toEqual(['ada@example.com']);
    expect(await readsOn('replica')).toBeGreaterThanOrEqual(replicaBefore + 5);
    expect(await readsOn('primary')).toBe(primaryBefore);
  });

  describe('while the replica replays nothing', () => {
    beforeAll(async () => {
      await caughtUp();
      await pg.pauseReplay();
    });
    afterAll(() => pg.resumeReplay());

    it('shows what the replica holds to a company that did not write (a read the replica answered)', async () => {
      await insertContacts(t.app, beta, [{ email: 'unseen@example.com' }]);
      const reply = await listOf(beta);
      expect(reply.status).toBe(200);
      expect(emails(reply)).not.toContain('unseen@example.com');
    });

    it('exports from the replica: a contact it has not replayed is not in the export', async () => {
      await insertContacts(t.app, beta, [{ email: 'unexported@example.com' }]);
      const replicaBefore = await readsOn('replica');
      const res = await fetch(`${t.baseUrl}/v1/funnels/${beta.funnelId}/contacts/export`, {
        headers: { 'x-service-api-key': beta.key },
      });
      expect(res.status).toBe(200);
      const exported = (await res.text()).split('\n').filter(Boolean);
      expect(exported.map((line) => (JSON.parse(line) as { email: string }).email)).not.toContain(
        'unexported@example.com',
      );
      expect(await readsOn('replica')).toBeGreaterThan(replicaBefore);
    });

    it('shows a company its own write at once (read-your-writes)', async () => {
      const api = httpClient(t.baseUrl, acme.key);
      const created = await api.post(`/v1/funnels/${acme.funnelId}/contacts`, { email: 'own@example.com' });
      expect(created.status).toBe(201);
      const read = await api.get(`/v1/funnels/${acme.funnelId}/contacts/${created.body.data.id}`);
      expect(read.status).toBe(200);
      expect(read.body.data.email).toBe('own@example.com');
      expect(emails(await listOf(acme))).toContain('own@example.com');
    });

    it('skips the replica once it lags past DATABASE_READ_MAX_LAG_MS, and exports the lag', async () => {
      const lagging = async () => (await metric('db_replica_lag_seconds')) > MAX_LAG_MS / 1000;
      for (const deadline = Date.now() + 60_000; !(await lagging()) && Date.now() < deadline;)
        await sleep(100);
      expect(await lagging()).toBe(true);
      const primaryBefore = await readsOn('primary');
      const reply = await listOf(beta);
      expect(reply.status).toBe(200);
      expect(emails(reply)).toContain('unseen@example.com');
      expect(await readsOn('primary')).toBeGreaterThan(primaryBefore);
    });
  });

  it('goes back to the replica once it has caught up', async () => {
    await caughtUp();
    const replicaBefore = await readsOn('replica');
    const reply = await listOf(beta);
    expect(emails(reply)).toContain('unseen@example.com');
    expect(await readsOn('replica')).toBeGreaterThan(replicaBefore);
  });

  it('runs every statement of a snapshot on the server where it began', async () => {
    await caughtUp();
    const reads = t.app.get(ReadPool);
    const tenant = acme.companyId;
    const seen = await reads.within(tenant, false, () =>
      reads.snapshot(async (rows) => {
        const first = await inRecovery(rows);
        reads.wrote(tenant);
        // Outside the snapshot, the company's next read would now go to the primary.
        const next = reads.within(tenant, false, () => reads.server());
        return { first, next, second: await inRecovery(rows) };
      }),
    );
    expect(seen).toEqual({ first: true, next: 'primary', second: true });
  });

  it('runs a snapshot again, whole, on the primary when the replica stops in the middle of it', async () => {
    await caughtUp();
    const reads = t.app.get(ReadPool);
    const attempts: boolean[][] = [];
    try {
      const answer = await reads.snapshot(async (rows) => {
        const seen = [await inRecovery(rows)];
        attempts.push(seen);
        if (attempts.length === 1) await pg.stopReplica();
        seen.push(await inRecovery(rows));
        return seen;
      });
      expect(answer).toEqual([false, false]);
      expect(attempts).toEqual([[true], [false, false]]);
      expect(await metric('db_replica_up')).toBe(0);
    } finally {
      await pg.startReplica();
    }
  });

  it('answers every read while the replica is stopped (no 5xx), and uses it again once it is back', async () => {
    await caughtUp();
    await pg.stopReplica();
    try {
      const api = httpClient(t.baseUrl, beta.key);
      const paths = [
        `/v1/funnels/${beta.funnelId}/contacts`,
        '/v1/workspaces',
        `/v1/funnels/${beta.funnelId}/metrics/kpis/kpi_total_sessions?from=2026-01-01&to=2026-01-31`,
      ];
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) => api.get(paths[i % paths.length])),
      );
      expect(replies.filter((r) => r.status !== 200)).toEqual([]);
      expect(await metric('db_replica_up')).toBe(0);
    } finally {
      await pg.startReplica();
    }
    await caughtUp();
    const replicaBefore = await readsOn('replica');
    expect((await listOf(beta)).status).toBe(200);
    expect(await readsOn('replica')).toBeGreaterThan(replicaBefore);
  });
});
