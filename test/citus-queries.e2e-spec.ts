import { Client } from 'pg';
import { CITUS_PLAN, CITUS_QUERY_GAPS } from '../db/citus-plan';
import { startTestApp, TestApp } from './support/app';
import { createTenant } from './support/factories';
import { httpClient } from './support/http-client';
import { randomTraffic } from './support/random-traffic';
import { WebhookReceiver } from './support/webhook-receiver';

const DISTRIBUTED = Object.entries(CITUS_PLAN).flatMap(([table, p]) =>
  'distributed' in p ? [{ table, column: p.distributed }] : [],
);

/** The text of a statement as node-postgres receives it (a string or a query config). */
function statementText(args: unknown[]): string | undefined {
  const [first] = args;
  if (typeof first === 'string') return first;
  if (first && typeof first === 'object' && typeof (first as { text?: unknown }).text === 'string')
    return (first as { text: string }).text;
  return undefined;
}

/**
 * The distributed tables a statement reads or writes that it never names its distribution
 * column for: on Citus such a statement goes to every shard (or, for a write, fails).
 */
export function unrouted(sql: string): string[] {
  const text = sql.replace(/\s+/g, ' ');
  return DISTRIBUTED.filter(({ table }) =>
    new RegExp(`\\b(from|join|into|update)\\s+(only\\s+)?"?${table}"?(\\s|$|\\()`, 'i').test(text),
  )
    .filter(({ column }) => !new RegExp(`\\b${column}\\b`, 'i').test(text))
    .map(({ table, column }) => `${table} without ${column}`);
}

/** A statement's name in the gap list: its first 100 characters, spaces collapsed. */
const fingerprint = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 100);

describe('Every statement on a distributed table names its distribution column', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const statements = new Set<string>();
  const original = Client.prototype.query;

  beforeAll(async () => {
    // Every statement the service sends, whatever sends it (TypeORM, the pool, a client).
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      const text = statementText(args);
      if (text) statements.add(text);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof Client.prototype.query;
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ WEBHOOK_ALLOW_LOOPBACK_TARGETS: 'true', AUTOMATION_POLL_INTERVAL_MS: '50' });
    const acme = await createTenant(t.app);
    const api = httpClient(t.baseUrl, acme.key);
    const funnel = `/v1/funnels/${acme.funnelId}`;
    const expectOk = (status: number) => expect(status).toBeLessThan(300);

    // The traffic of the REST API, route by route.
    expectOk(
      (await api.post(`${funnel}/webhooks`, { targetUrl: receiver.url, events: ['contact.created'] })).status,
    );
    expectOk((await api.get(`${funnel}/webhooks`)).status);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await api.post(
        `${funnel}/contacts`,
        { email: `c${i}@example.com`, firstName: `C${i}` },
        { 'Idempotency-Key': `key-${i}` },
      );
      expectOk(created.status);
      ids.push(created.body.data.id as string);
    }
    for (const query of ['', '?limit=1', '?sortField=email&sortOrder=1', '?status=lead', '?page=1&limit=2']) {
      expectOk((await api.get(`${funnel}/contacts${query}`)).status);
    }
    const page = await api.get(`${funnel}/contacts?limit=1`);
    expectOk((await api.get(`${funnel}/contacts?limit=1&cursor=${page.body.meta.nextCursor}`)).status);
    expectOk((await api.get(`${funnel}/contacts/${ids[0]}`)).status);
    expectOk(
      (await api.put(`${funnel}/contacts/${ids[0]}/values`, { fieldName: 'status', value: 'converted' }))
        .status,
    );
    expectOk(
      (await api.put(`${funnel}/contacts/${ids[1]}/values`, { fieldName: 'city', value: 'Berlin' })).status,
    );
    expectOk((await api.send('DELETE', `${funnel}/contacts/${ids[2]}`)).status);
    expectOk((await api.post(`${funnel}/events`, { events: randomTraffic(7, 20) })).status);
    const window = 'from=2026-05-10&to=2026-05-10';
    for (const path of [
      `metrics/charts/chart_page_to_page_conversion_rate?${window}`,
      `metrics/charts/chart_contacts_over_time?${window}`,
      `metrics/charts/chart_button_clicks?${window}`,
      `metrics/charts/chart_activity_by_daytime?${window}`,
      `metrics/kpis/kpi_total_sessions?${window}`,
      `metrics/kpis/kpi_messages_open_rate?${window}`,
      `metrics/kpis/kpi_average_time_on_page?${window}`,
      `metrics/insights/question_1?${window}`,
    ]) {
      expectOk((await api.get(`${funnel}/${path}`)).status);
    }
    expectOk((await api.get('/v1/workspaces')).status);
    // The webhook of the first contact is delivered by the worker.
    await receiver.waitFor(1);
  }, 120_000);
  afterAll(async () => {
    Client.prototype.query = original;
    await t?.close();
    await receiver?.close();
  });

  it('finds the column in every statement but the gaps the migration to Citus closes', () => {
    const misses = [...statements]
      .filter((sql) => unrouted(sql).length)
      .map((sql) => `${fingerprint(sql)} → ${unrouted(sql).join(', ')}`);
    expect(statements.size).toBeGreaterThan(50);
    expect([...new Set(misses)].sort()).toEqual([...CITUS_QUERY_GAPS].sort());
  });

  it('tells a statement that names the column from one that does not', () => {
    expect(unrouted('SELECT * FROM contacts c WHERE c.id = $1 AND c.company_id = $2')).toEqual([
      'contacts without funnel_id',
    ]);
    expect(unrouted('SELECT * FROM "contacts" WHERE "funnel_id" = $1')).toEqual([]);
    expect(unrouted('INSERT INTO idempotency_keys (key) VALUES ($1)')).toEqual([
      'idempotency_keys without company_id',
    ]);
  });
});
