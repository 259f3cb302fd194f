import type { IncomingMessage } from 'node:http';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AppMetrics, LONG_WORK_APPLICATION_NAME, sqlPool } from '@app/core';
import { CompanyWriters } from '@app/metrics';
import { FunnelsService } from '@app/workspaces';
import { startTestApp, TestApp } from './support/app';
import { insertContacts, seedBulkContacts } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { openStream } from './support/raw-request';
import { eventually } from './support/webhook-receiver';

// Far more than the socket buffers between the service and a client that stops reading hold.
const BIG_FUNNEL = { contacts: 12_000, blobBytes: 2_000 };

/** Exports running on long-work connections, as PostgreSQL sees them. */
const exportsRunning = async (ds: DataSource) =>
  Number(
    (
      await ds.query(
        `SELECT count(*) AS n FROM pg_stat_activity
         WHERE application_name = $1 AND query LIKE '%contacts_export%' AND state <> 'idle'`,
        [LONG_WORK_APPLICATION_NAME],
      )
    )[0].n,
  );

/** Opens an export and stops reading it once its first bytes are in. */
async function stalledExport(baseUrl: string, tenant: TenantFixture): Promise<IncomingMessage> {
  const res = await openStream(baseUrl, `/v1/funnels/${tenant.funnelId}/contacts/export`, {
    'x-service-api-key': tenant.key,
  });
  expect(res.statusCode).toBe(200);
  await new Promise((resolve) => res.once('data', resolve));
  res.pause();
  return res;
}

/** Reads the rest of a response: 'complete' when it ends whole, 'cut' when the service cut it off. */
const outcomeOf = (res: IncomingMessage) =>
  new Promise<'complete' | 'cut'>((resolve) => {
    res.on('error', () => resolve('cut'));
    res.on('aborted', () => resolve('cut'));
    res.on('end', () => resolve(res.complete ? 'complete' : 'cut'));
    res.resume();
  });

async function bigTenant(t: TestApp): Promise<TenantFixture> {
  const tenant = await createTenant(t.app);
  await seedBulkContacts(t.app.get(DataSource), tenant, BIG_FUNNEL.contacts, BIG_FUNNEL.blobBytes);
  return tenant;
}

describe('an export whose client stops reading (EXPORT_STALL_TIMEOUT_MS)', () => {
  let t: TestApp;
  let big: TenantFixture;
  let other: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp({ EXPORT_STALL_TIMEOUT_MS: '1500' });
    big = await bigTenant(t);
    other = await createTenant(t.app);
    await insertContacts(t.app, other, [{ email: 'other@example.com' }]);
  });
  afterAll(() => t.close());

  it('is cut off, its database connection closed and its place given back', async () => {
    const ds = t.app.get(DataSource);
    const stalled = await stalledExport(t.baseUrl, big);
    // Another company is served meanwhile.
    const list = await httpClient(t.baseUrl, other.key).get(`/v1/funnels/${other.funnelId}/contacts`);
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);

    await eventually(async () => (await exportsRunning(ds)) === 0, 60_000);
    expect(await outcomeOf(stalled)).toBe('cut');

    // Both of the company's places are free again: two exports at once are served.
    const [one, two] = await Promise.all([stalledExport(t.baseUrl, big), stalledExport(t.baseUrl, big)]);
    one.destroy();
    two.destroy();
    await eventually(async () => (await exportsRunning(ds)) === 0, 60_000);
  });
});

describe('long-running requests of one company (DATABASE_LONG_WORK_PER_COMPANY)', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let initech: TenantFixture;
  let globex: TenantFixture;
  let globexContact: string;
  const open: IncomingMessage[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      EXPORT_STALL_TIMEOUT_MS: '600000',
      DATABASE_LONG_WORK_PER_COMPANY: '2',
      DATABASE_LONG_WORK_CONNECTIONS: '4',
    });
    [acme, initech] = [await bigTenant(t), await bigTenant(t)];
    globex = await createTenant(t.app);
    [{ id: globexContact }] = await insertContacts(t.app, globex, [{ email: 'ada@example.com' }]);
    const created = await httpClient(t.baseUrl, acme.key).post(`/v1/funnels/${acme.funnelId}/properties`, {
      name: 'tier',
      type: 'string',
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    open.forEach((res) => res.destroy());
    await t.close();
  });

  const expectBusy = (res: { status: number; headers: Headers; body: Record<string, unknown> }) => {
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.body).toEqual({ error: expect.any(String), status: 429, retryAfter: 2 });
  };

  it('refuses the third at once with 429 and Retry-After, while other companies are served', async () => {
    open.push(await stalledExport(t.baseUrl, acme), await stalledExport(t.baseUrl, acme));
    const acmeApi = httpClient(t.baseUrl, acme.key);
    const exportAgain = await acmeApi.get(`/v1/funnels/${acme.funnelId}/contacts/export`);
    expectBusy(exportAgain);
    expect(exportAgain.body.error).toMatch(/at most 2 per company/);
    // Searches and property-definition changes share the company's places.
    expectBusy(await acmeApi.post(`/v1/funnels/${acme.funnelId}/contacts/search`, { filterGroups: [] }));
    expectBusy(
      await acmeApi.send('PATCH', `/v1/funnels/${acme.funnelId}/properties/tier`, { label: 'Tier' }),
    );
    // The company's interactive reads are not long work.
    expect((await acmeApi.get(`/v1/funnels/${acme.funnelId}/contacts?limit=5`)).status).toBe(200);

    const globexApi = httpClient(t.baseUrl, globex.key);
    expect((await globexApi.get(`/v1/funnels/${globex.funnelId}/contacts`)).status).toBe(200);
    expect((await globexApi.get(`/v1/funnels/${globex.funnelId}/contacts/${globexContact}`)).status).toBe(
      200,
    );
    const search = await globexApi.post(`/v1/funnels/${globex.funnelId}/contacts/search`, {
      filterGroups: [{ filters: [{ field: 'email', operator: 'eq', value: 'ada@example.com' }] }],
    });
    expect(search.status).toBe(200);
    expect(search.body.meta.total).toBe(1);
    const exported = await globexApi.get(`/v1/funnels/${globex.funnelId}/contacts/export`);
    expect(exported.status).toBe(200);
  });

  it('keeps readiness and interactive requests up when every place of long work is taken', async () => {
    open.push(await stalledExport(t.baseUrl, initech), await stalledExport(t.baseUrl, initech));
    expect(await exportsRunning(t.app.get(DataSource))).toBe(4);
    const globexApi = httpClient(t.baseUrl, globex.key);
    const refused = await globexApi.get(`/v1/funnels/${globex.funnelId}/contacts/export`);
    expectBusy(refused);
    expect(refused.body.error).toMatch(/busy/);
    expect((await globexApi.get(`/v1/funnels/${globex.funnelId}/contacts`)).status).toBe(200);
    expect((await httpClient(t.baseUrl).get('/health')).status).toBe(200);
  });

  it('answers readiness over a connection of its own, even with every pooled connection held', async () => {
    const pool = sqlPool(t.app.get(DataSource));
    const held = await Promise.all(Array.from({ length: pool.options.max }, () => pool.connect()));
    try {
      expect(pool.idleCount).toBe(0);
      expect((await httpClient(t.baseUrl).get('/health')).status).toBe(200);
    } finally {
      held.forEach((client) => client.release());
    }
  });

  it("gives a company's places back when its exports end", async () => {
    open.splice(0).forEach((res) => res.destroy());
    await eventually(async () => (await exportsRunning(t.app.get(DataSource))) === 0, 60_000);
    const patched = await httpClient(t.baseUrl, acme.key).send(
      'PATCH',
      `/v1/funnels/${acme.funnelId}/properties/tier`,
      { label: 'Tier' },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.data.label).toBe('Tier');
  });

  it("holds a company's writes without a connection while a definition change of their funnel runs", async () => {
    const ds = t.app.get(DataSource);
    // A writer of another process holds the funnel's definitions, so the change waits as one over
    // a large funnel would.
    const writer = new Client({ connectionString: t.databaseUrl });
    await writer.connect();
    await writer.query('BEGIN');
    await writer.query('SELECT pg_advisory_xact_lock_shared(contact_properties_lock_key($1))', [
      acme.funnelId,
    ]);
    const acmeApi = httpClient(t.baseUrl, acme.key);
    const change = acmeApi.send('PATCH', `/v1/funnels/${acme.funnelId}/properties/tier`, { unique: false });
    const waitingOn = async (application: string) =>
      Number(
        (
          await ds.query(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
            [application],
          )
        )[0].n,
      );
    await eventually(async () => (await waitingOn(LONG_WORK_APPLICATION_NAME)) === 1);
    // More writes of the funnel's properties than the interactive pool has connections.
    const ids: { id: string }[] = await ds.query('SELECT id FROM contacts WHERE funnel_id = $1 LIMIT 12', [
      acme.funnelId,
    ]);
    const writes = ids.map(({ id }, i) =>
      acmeApi.send('PATCH', `/v1/funnels/${acme.funnelId}/contacts/${id}`, { properties: { tier: `t${i}` } }),
    );
    // Every write has arrived: waiting in the process, or (were they not held) on the database.
    const metrics = t.app.get(AppMetrics).registry;
    const heldInProcess = async () =>
      (await metrics.getSingleMetric('contact_writes_waiting_for_definitions')!.get()).values[0].value;
    await eventually(async () => (await heldInProcess()) + (await waitingOn('funnel-crm')) >= 10);
    const globexApi = httpClient(t.baseUrl, globex.key);
    expect((await globexApi.get(`/v1/funnels/${globex.funnelId}/contacts`)).status).toBe(200);
    expect(await waitingOn('funnel-crm')).toBe(0);
    expect(await heldInProcess()).toBe(12);

    await writer.query('COMMIT');
    await writer.end();
    expect((await change).status).toBe(200);
    expect((await Promise.all(writes)).map((res) => res.status)).toEqual(Array(12).fill(200));
  });
});

describe("one company's event batches across its funnels (EVENT_WRITERS_PER_COMPANY)", () => {
  let t: TestApp;
  let busy: TenantFixture;
  let other: TenantFixture;
  const FUNNELS = 5;

  beforeAll(async () => {
    t = await startTestApp({ EVENT_WRITERS_PER_COMPANY: '1', RATE_LIMIT_PER_MINUTE: '10000' });
    busy = await createTenant(t.app);
    other = await createTenant(t.app);
  });
  afterAll(() => t.close());

  const sessionEvents = (sessionId: string) => [
    {
      sessionId,
      visitorId: 'v',
      type: 'session_start',
      device: 'mobile',
      occurredAt: '2026-03-02T10:00:00Z',
    },
    {
      sessionId,
      type: 'page_view',
      pageSlug: 'start',
      occurredAt: '2026-03-02T10:00:05Z',
    },
  ];

  it('waits for its own writer, holding no connection, while other companies are served; nothing is lost', async () => {
    const funnels = [busy.funnelId];
    const workspaces = t.app.get(FunnelsService);
    for (let i = 1; i < FUNNELS; i++) {
      funnels.push(
        (await workspaces.create({ workspaceId: busy.workspaceId, name: `Funnel ${i}`, status: 'online' }))
          .id,
      );
    }
    const writers = t.app.get(CompanyWriters);
    // The company's one place, taken here: every batch must wait for it.
    const hold = await writers.acquire(busy.companyId);
    const api = httpClient(t.baseUrl, busy.key);
    const sent = funnels.map((funnelId, i) =>
      api.post(`/v1/funnels/${funnelId}/events`, { events: sessionEvents(`s${i}`) }),
    );
    await eventually(async () => writers.usage(busy.companyId).waiting === FUNNELS);
    expect(writers.usage(busy.companyId)).toEqual({ running: 1, waiting: FUNNELS });
    const served = await httpClient(t.baseUrl, other.key).get(`/v1/funnels/${other.funnelId}/contacts`);
    expect(served.status).toBe(200);

    hold();
    const answers = await Promise.all(sent);
    expect(answers.map((res) => [res.status, res.body])).toEqual(
      funnels.map(() => [202, { data: { accepted: 2 } }]),
    );
    expect(writers.usage(busy.companyId)).toEqual({ running: 0, waiting: 0 });
    for (const funnelId of funnels) {
      const kpi = await api.get(
        `/v1/funnels/${funnelId}/metrics/kpis/kpi_total_sessions?from=2026-03-01T00:00:00Z&to=2026-03-31T23:59:59.999Z`,
      );
      expect(kpi.body.data).toEqual({ type: 'kpiTotalSessions', value: 1 });
    }
  });
});
