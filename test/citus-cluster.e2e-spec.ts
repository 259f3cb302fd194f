import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { ContactPropertiesService, ContactsService } from '@app/contacts';
import { SegmentFolder } from '@app/metrics';
import { AdminModule } from '../apps/admin/src/admin.module';
import { CITUS_PLAN, Placement } from '../db/citus-plan';
import { CitusCluster, citusInstalled, startCitusCluster, CITUS_LIBRARY } from './support/citus-cluster';
import { startTestApp } from './support/app';
import { fromEven, gatherShardsOn, rowsPerWorker, shardOf } from './support/citus-spread';
import { createTestDatabase } from './support/database';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { runAdmin } from './support/processes';
import { randomTraffic } from './support/random-traffic';

// Three PostgreSQL servers, every migration and the distribution, on a machine shared with other suites.
jest.setTimeout(300_000);

const FUNNEL = '0a1b2c3d-0000-4000-8000-000000000001';
const CONTACT = '0a1b2c3d-0000-4000-8000-000000000002';

const suite = citusInstalled() ? describe : describe.skip;
if (!citusInstalled()) console.log(`Citus cluster suite skipped: ${CITUS_LIBRARY} is not installed`);

suite('Citus cluster: the distribution plan applied', () => {
  let cluster: CitusCluster;
  let client: Client;
  let first: Record<string, unknown>;
  const admin = (...args: string[]) => runAdmin(args, { DATABASE_URL: cluster.url });

  beforeAll(async () => {
    cluster = await startCitusCluster();
    // The admin CLI migrates on start outside production, then distributes.
    const result = await admin('citus', 'distribute', '--shard-count', '4');
    expect(result.stderr).toBe('');
    first = result.json;
    client = new Client({ connectionString: cluster.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await cluster?.stop();
  });

  const planned = Object.entries(CITUS_PLAN);

  it('places every table as db/citus-plan.ts says, in Citus’s own catalog', async () => {
    const { rows } = await client.query(
      `SELECT table_name::text AS "table", citus_table_type AS "type", distribution_column AS "column", colocation_id AS "colocation"
         FROM citus_tables`,
    );
    const actual = Object.fromEntries(rows.map((r) => [r.table, r]));
    const placedAs = (row?: { type: string; column: string }) =>
      row === undefined
        ? 'coordinator'
        : row.type === 'reference'
          ? 'reference'
          : `${row.type} by ${row.column}`;
    const plannedAs = (p: Placement) =>
      'coordinator' in p ? 'coordinator' : 'reference' in p ? 'reference' : `distributed by ${p.distributed}`;
    expect(Object.fromEntries(planned.map(([t]) => [t, placedAs(actual[t])]))).toEqual(
      Object.fromEntries(planned.map(([t, p]) => [t, plannedAs(p)])),
    );
    // Every table distributed by funnel shares the shards of contacts, so joins on funnel_id stay on one node.
    const byFunnel = planned
      .filter(([, p]) => 'distributed' in p && p.distributed === 'funnel_id')
      .map(([t]) => t);
    expect(new Set(byFunnel.map((t) => actual[t].colocation))).toEqual(new Set([actual.contacts.colocation]));
    // Every table the schema has is in the plan; the workers hold shards.
    const { rows: tables } = await client.query(
      `SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition`,
    );
    expect(tables.map((t) => t.relname).filter((t: string) => !(t in CITUS_PLAN))).toEqual([]);
    // The foreign keys set aside while placing are all back, as on one PostgreSQL.
    const fks = `SELECT conrelid::regclass::text AS t, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE contype = 'f' AND conrelid::regclass::text = ANY($1) ORDER BY 1, 2`;
    const single = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await single.connect();
    const expected = (await single.query(fks, [Object.keys(CITUS_PLAN)]).finally(() => single.end())).rows;
    expect(expected.length).toBeGreaterThan(10);
    expect((await client.query(fks, [Object.keys(CITUS_PLAN)])).rows).toEqual(expected);
    const { rows: nodes } = await client.query(
      `SELECT DISTINCT nodeport FROM pg_dist_shard_placement p JOIN pg_dist_shard s USING (shardid)
        WHERE s.logicalrelid = 'contacts'::regclass ORDER BY 1`,
    );
    expect(nodes.map((n) => n.nodeport).sort()).toEqual(cluster.workers.map((w) => w.port).sort());
  });

  it('reports what it placed, and a second run changes nothing', async () => {
    const placed = (first.placed as { table: string }[]).map((p) => p.table);
    expect(placed.sort()).toEqual(
      planned
        .filter(([, p]) => !('coordinator' in p))
        .map(([t]) => t)
        .sort(),
    );
    // References before the tables that refer to them.
    expect(placed.indexOf('companies')).toBeLessThan(placed.indexOf('workspaces'));
    const again = await admin('citus', 'distribute');
    expect(again.code).toBe(0);
    expect(again.json.placed).toEqual([]);
    expect((again.json.alreadyPlaced as string[]).sort()).toEqual(placed.sort());
  });

  /** The plan of `sql`: Citus routes it to one shard when it names a single funnel. */
  async function taskCount(sql: string): Promise<number> {
    const { rows } = await client.query(`EXPLAIN ${sql}`);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    const match = /Task Count: (\d+)/.exec(plan);
    if (!match) throw new Error(`not a distributed plan:\n${plan}`);
    return Number(match[1]);
  }

  it.each([
    [
      'a contact by funnel and id',
      `SELECT * FROM contacts WHERE funnel_id = '${FUNNEL}' AND id = '${CONTACT}'`,
    ],
    [
      'a page of a funnel’s contacts',
      `SELECT * FROM contacts WHERE funnel_id = '${FUNNEL}' ORDER BY created_at DESC, id DESC LIMIT 50`,
    ],
    [
      'a contact with its messages',
      `SELECT c.id, m.id FROM contacts c JOIN contact_messages m ON m.funnel_id = c.funnel_id AND m.contact_id = c.id
        WHERE c.funnel_id = '${FUNNEL}' AND c.id = '${CONTACT}'`,
    ],
    [
      'a funnel’s events of a day',
      `SELECT count(*) FROM metric_events WHERE funnel_id = '${FUNNEL}' AND occurred_at >= '2026-11-01' AND occurred_at < '2026-11-02'`,
    ],
    ['a funnel’s contact count', `SELECT * FROM funnel_contact_counts WHERE funnel_id = '${FUNNEL}'`],
  ])('routes %s to a single shard', async (_, sql) => {
    expect(await taskCount(sql)).toBe(1);
  });

  it('sends a statement without the funnel to every shard (what the plans above avoid)', async () => {
    expect(await taskCount(`SELECT * FROM contacts WHERE id = '${CONTACT}'`)).toBe(4);
  });

  it('notifies the coordinator of workspace, funnel and key changes as one PostgreSQL does', async () => {
    const single = await createTestDatabase();
    try {
      const expected = await cacheNotifications(single.url);
      expect(expected).toHaveLength(6);
      expect(await cacheNotifications(cluster.url)).toEqual(expected);
    } finally {
      await single.drop();
    }
  });

  it('answers contact reads and a property definition of a funnel as one PostgreSQL does', async () => {
    const single = await createTestDatabase();
    try {
      const expected = await contactReads(single.url);
      expect(expected.list).toMatchObject({ data: [] });
      expect(expected.missing).toMatch(/not found/i);
      expect(expected.defined).toMatchObject({ name: 'renewal', type: 'date' });
      expect(await contactReads(cluster.url)).toEqual(expected);
    } finally {
      await single.drop();
    }
  });

  it('evens out contacts and events over the workers with citus rebalance, answering the same after', async () => {
    const t = await startTestApp({ SEGMENT_FOLD_POLL_MS: '3600000' }, cluster.url);
    try {
      // One funnel on each of the 4 shards of contacts, each with the same rows.
      const byShard = new Map<string, TenantFixture>();
      for (let i = 0; byShard.size < 4 && i < 200; i++) {
        const tenant = await createTenant(t.app);
        const shard = await shardOf(client, tenant.funnelId);
        if (!byShard.has(shard)) byShard.set(shard, tenant);
      }
      expect(byShard.size).toBe(4);
      const tenants = [...byShard.values()];
      for (const tenant of tenants) {
        const api = httpClient(t.baseUrl, tenant.key);
        const funnel = `/v1/funnels/${tenant.funnelId}`;
        const contacts = Array.from({ length: 30 }, (_, n) => ({ email: `c${n}@example.com` }));
        expect((await api.post(`${funnel}/contacts/batch`, { contacts })).status).toBeLessThan(300);
        expect((await api.post(`${funnel}/events`, { events: randomTraffic(3, 20) })).status).toBeLessThan(
          300,
        );
      }
      await t.app.get(SegmentFolder).drain();
      const answers = () => funnelAnswers(t.baseUrl, tenants);
      const before = await answers();
      expect(before.filter((a) => a.status !== 200)).toEqual([]);

      const ports = cluster.workers.map((w) => w.port);
      await gatherShardsOn(client, ports[0]);
      expect(fromEven(await rowsPerWorker(client, 'contacts'), ports)).toBe(100);
      const dryRun = await admin('citus', 'rebalance', '--dry-run');
      expect(dryRun).toMatchObject({ code: 0, stderr: '' });
      expect(dryRun.json.planned).toHaveLength(2);
      expect(fromEven(await rowsPerWorker(client, 'contacts'), ports)).toBe(100);
      const rebalanced = await admin('citus', 'rebalance');
      expect(rebalanced).toMatchObject({ code: 0, stderr: '' });
      expect(rebalanced.json).toMatchObject({ shardTransferMode: 'auto', before: { contactsFromEven: 100 } });
      const moved = rebalanced.json.moved as { from: string; to: string }[];
      expect(moved).toEqual(dryRun.json.planned);
      expect(moved.every((m) => m.from === `127.0.0.1:${ports[0]}` && m.to === `127.0.0.1:${ports[1]}`)).toBe(
        true,
      );
      // Read from Citus's placements, not from the command's own count.
      for (const table of ['contacts', 'metric_events'])
        expect(fromEven(await rowsPerWorker(client, table), ports)).toBeLessThanOrEqual(10);

      const again = await admin('citus', 'rebalance');
      expect(again.code).toBe(0);
      expect(again.json.moved).toEqual([]);
      expect(again.json.after).toEqual(again.json.before);
      expect(await answers()).toEqual(before);
    } finally {
      await t.close();
    }
  });
});

describe('Citus rebalance on a database that is not a Citus coordinator', () => {
  it('refuses with one line and a non-zero exit, moving nothing', async () => {
    const single = await createTestDatabase();
    try {
      const result = await runAdmin(['citus', 'rebalance'], { DATABASE_URL: single.url });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.json).toEqual({
        error: 'this database is not a Citus coordinator: connect to the coordinator',
      });
    } finally {
      await single.drop();
    }
  });

  it('refuses a transfer mode Citus does not have, naming the ones it has', async () => {
    const result = await runAdmin(['citus', 'rebalance', '--shard-transfer-mode', 'fast'], {});
    expect(result.code).toBe(2);
    expect(result.json).toEqual({
      error: '--shard-transfer-mode must be one of auto, force_logical, block_writes',
      usage: 'admin citus rebalance [--dry-run] [--shard-transfer-mode <mode>]',
    });
  });
});

/** Each funnel's contact list, a contact read, a chart and a KPI, through the API. */
async function funnelAnswers(
  baseUrl: string,
  tenants: TenantFixture[],
): Promise<{ status: number; body: unknown }[]> {
  const answers: { status: number; body: unknown }[] = [];
  const window = 'from=2026-05-10&to=2026-05-10';
  for (const tenant of tenants) {
    const api = httpClient(baseUrl, tenant.key);
    const funnel = `/v1/funnels/${tenant.funnelId}`;
    const list = await api.get(`${funnel}/contacts?limit=100&sortField=email&sortOrder=1`);
    const contact = await api.get(`${funnel}/contacts/${list.body?.data?.[0]?.id}`);
    const chart = await api.get(`${funnel}/metrics/charts/chart_page_to_page_conversion_rate?${window}`);
    const kpi = await api.get(`${funnel}/metrics/kpis/kpi_total_sessions?${window}`);
    for (const reply of [list, contact, chart, kpi]) answers.push({ status: reply.status, body: reply.body });
  }
  return answers;
}

const COMPANY = '0a1b2c3d-0000-4000-8000-0000000000c1';
const WORKSPACE = '0a1b2c3d-0000-4000-8000-0000000000a1';

/** The caches' notifications a listener on `url` receives while a workspace, funnel and key change. */
async function cacheNotifications(url: string): Promise<string[]> {
  const listener = new Client({ connectionString: url });
  const writer = new Client({ connectionString: url });
  await Promise.all([listener.connect(), writer.connect()]);
  const received: string[] = [];
  listener.on('notification', (n) => received.push(`${n.channel}:${n.payload}`));
  try {
    for (const channel of ['workspaces_changed', 'funnels_changed', 'api_keys_changed', 'written']) {
      await listener.query(`LISTEN ${channel}`);
    }
    await writer.query("INSERT INTO companies (id, name, subscription_id) VALUES ($1, 'C', 'sub_c')", [
      COMPANY,
    ]);
    await writer.query("INSERT INTO workspaces (id, company_id, name) VALUES ($1, $2, 'W')", [
      WORKSPACE,
      COMPANY,
    ]);
    await writer.query("INSERT INTO funnels (id, workspace_id, company_id, name) VALUES ($1, $2, $3, 'F')", [
      FUNNEL,
      WORKSPACE,
      COMPANY,
    ]);
    await writer.query("UPDATE funnels SET name = 'G' WHERE id = $1", [FUNNEL]);
    await writer.query(
      `INSERT INTO api_keys (company_id, prefix, key_hash, permissions) VALUES ($1, 'pfx1', repeat('a', 64), '{}')`,
      [COMPANY],
    );
    await writer.query("UPDATE api_keys SET revoked_at = now() WHERE prefix = 'pfx1'");
    // Delivered after every notification committed before it.
    await writer.query('NOTIFY written');
    const deadline = Date.now() + 60_000;
    while (!received.includes('written:') && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      await listener.query('SELECT 1');
    }
    return received.filter((n) => n !== 'written:');
  } finally {
    await Promise.all([listener.end(), writer.end()]);
  }
}

/** The contact list, a missing contact's read and a date property defined, of a funnel with no contacts, through the services. */
async function contactReads(url: string): Promise<{ list: unknown; missing: string; defined: unknown }> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      "INSERT INTO companies (id, name, subscription_id) VALUES ($1, 'C', 'sub_c') ON CONFLICT DO NOTHING",
      [COMPANY],
    );
    await client.query(
      "INSERT INTO workspaces (id, company_id, name) VALUES ($1, $2, 'W') ON CONFLICT DO NOTHING",
      [WORKSPACE, COMPANY],
    );
    await client.query(
      "INSERT INTO funnels (id, workspace_id, company_id, name) VALUES ($1, $2, $3, 'F') ON CONFLICT DO NOTHING",
      [FUNNEL, WORKSPACE, COMPANY],
    );
  } finally {
    await client.end();
  }
  const app: INestApplicationContext = await NestFactory.createApplicationContext(
    AdminModule.forRoot({ databaseUrl: url }),
    { logger: false },
  );
  try {
    const contacts = app.get(ContactsService);
    const list = await contacts.list(COMPANY, FUNNEL, {
      page: 0,
      limit: 20,
      sortField: 'ps_converted_at',
      sortOrder: -1,
    });
    const missing = await contacts.get(COMPANY, FUNNEL, CONTACT).then(
      () => 'found',
      (error: Error) => error.message,
    );
    const properties = app.get(ContactPropertiesService);
    const defined = await properties.create(COMPANY, FUNNEL, { name: 'renewal', type: 'date' }).then(
      (view) => ({ ...view, createdAt: undefined, updatedAt: undefined }),
      (error: Error) => error.message,
    );
    return { list, missing, defined };
  } finally {
    await app.close();
  }
}
