import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Client } from 'pg';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { MessageTokens } from '@app/automations';
import { EventPartitions, EventRetention, SegmentFolder } from '@app/metrics';
import { startTestApp } from './app';
import { createTenant } from './factories';
import { httpClient, Reply } from './http-client';
import { runAdminTraffic } from './citus-admin-traffic';
import { type Answer, withoutIdsOrTimes } from './citus-answers';
import { runOAuthTraffic } from './citus-oauth-traffic';
import { connectMcpClient, MCP_AUDIENCE, MCP_CLAIM_NAMESPACE } from './mcp-stack';
import { runAdmin } from './processes';
import { randomTraffic } from './random-traffic';
import { startTokenIssuer } from './token-issuer';
import { WebhookReceiver } from './webhook-receiver';

export { type Answer, normalise } from './citus-answers';

async function untilNoRunIsDue(url: string, funnelId: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM automation_runs WHERE funnel_id = $1 AND status IN ('pending', 'running')",
        [funnelId],
      );
      if (rows[0].n === 0) return;
      if (Date.now() > deadline) throw new Error(`${rows[0].n} automation runs still undelivered`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    await client.end();
  }
}

// A page of the funnel, as the browser that shows it calls the public routes.
const PAGE = {
  origin: 'https://shop.example',
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36',
};
const SMS_SECRET = 'citus-traffic-sms-gateway-secret-0123456789';
const secondsAgo = (s: number) => new Date(Date.now() - s * 1000).toISOString();

/**
 * The API's traffic on the database at `url` (already migrated): a tenant, contacts created, batched,
 * imported, listed, searched, exported, changed and erased; events ingested and folded, then charts,
 * KPIs, insights and a step funnel; an automation's webhook delivered to a local receiver; the
 * admin CLI; an MCP client's sign-in with the service as its authorization server. Returns every
 * answer in order.
 */
export async function runTraffic(url: string): Promise<Answer[]> {
  const receiver = await WebhookReceiver.start();
  const issuer = await startTokenIssuer({ audience: MCP_AUDIENCE });
  const t = await startTestApp(
    {
      WEBHOOK_ALLOW_LOOPBACK_TARGETS: 'true',
      AUTOMATION_POLL_INTERVAL_MS: '50',
      SEGMENT_FOLD_POLL_MS: '3600000',
      IDP_URL: issuer.url,
      OAUTH_CLIENT_ID: 'shared-client-id',
      OAUTH_AUDIENCE: MCP_AUDIENCE,
      OAUTH_CLAIM_NAMESPACE: MCP_CLAIM_NAMESPACE,
      SUBMIT_MIN_SECONDS: '1',
      SMS_GATEWAY_URL: 'http://127.0.0.1:9/send',
      SMS_GATEWAY_SECRET: SMS_SECRET,
    },
    url,
  );
  const dir = mkdtempSync(join(tmpdir(), 'citus-traffic-'));
  const answers: Answer[] = [];
  try {
    const acme = await createTenant(t.app);
    const api = httpClient(t.baseUrl, acme.key);
    const funnel = `/v1/funnels/${acme.funnelId}`;
    const record = (call: string, reply: Reply) => {
      answers.push({ call, status: reply.status, body: reply.body });
      return reply;
    };
    const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      record(`${method} ${path.replace(funnel, '{funnel}')}`, await api.send(method, path, body, headers));

    await call('GET', '/v1/workspaces');
    await call('GET', funnel);
    await call('POST', `${funnel}/webhooks`, { targetUrl: receiver.url, events: ['contact.created'] });
    await call('GET', `${funnel}/webhooks`);
    const spare = await call('POST', `${funnel}/webhooks`, {
      targetUrl: receiver.url,
      events: ['contact.created'],
    });
    await call('GET', `${funnel}/webhooks/${spare.body?.data?.id}`);
    await call('DELETE', `${funnel}/webhooks/${spare.body?.data?.id}`);
    const message = {
      on: 'contact.created',
      message: 'email',
      subject: 'Hi {{firstName}}',
      template: 'Welcome',
    };
    const automation = await call('POST', `${funnel}/automations`, message);
    await call('GET', `${funnel}/automations`);
    await call('PATCH', `${funnel}/automations/${automation.body?.data?.id}`, { enabled: false });
    await call('DELETE', `${funnel}/automations/${automation.body?.data?.id}`);
    await call('PATCH', funnel, { collection: { enabled: true, allowedOrigins: [PAGE.origin] } });
    await call('POST', `${funnel}/properties`, { name: 'score', type: 'number' });
    await call('POST', `${funnel}/properties`, { name: 'code', type: 'string', unique: true });
    await call('POST', `${funnel}/properties`, { name: 'renewal', type: 'date' });
    await call('GET', `${funnel}/properties`);
    await call('GET', `${funnel}/properties/score`);
    await call('POST', `${funnel}/properties`, { name: 'spare', type: 'string' });
    await call('PATCH', `${funnel}/properties/spare`, { label: 'Spare' });
    await call('DELETE', `${funnel}/properties/spare`);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await call(
        'POST',
        `${funnel}/contacts`,
        { email: `c${i}@example.com`, firstName: `C${i}` },
        { 'Idempotency-Key': `key-${i}` },
      );
      ids.push(created.body?.data?.id as string);
      // Properties are written one at a time on this door.
      await call('PUT', `${funnel}/contacts/${ids[i]}/values`, { fieldName: 'score', value: String(i * 10) });
      await call('PUT', `${funnel}/contacts/${ids[i]}/values`, { fieldName: 'code', value: `k${i}` });
    }
    // The same key and body again answers the stored answer; a taken unique value is refused.
    await call(
      'POST',
      `${funnel}/contacts`,
      { email: 'c0@example.com', firstName: 'C0' },
      { 'Idempotency-Key': 'key-0' },
    );
    const dup = await call('POST', `${funnel}/contacts`, { email: 'dup@example.com' });
    await call('PUT', `${funnel}/contacts/${dup.body?.data?.id}/values`, { fieldName: 'code', value: 'k1' });
    await call('POST', `${funnel}/contacts/batch`, {
      contacts: [
        { email: 'b1@example.com', properties: { score: 55, renewal: '2027-01-01' } },
        { email: 'b2@example.com', firstName: 'Batched' },
        { email: 'not-an-email' },
      ],
    });
    const csv = join(dir, 'import.csv');
    writeFileSync(csv, 'email,firstName,properties.score\ni1@example.com,Imp,70\ni2@example.com,Again,71\n');
    const imported = await runAdmin(['contact', 'import', '--funnel', acme.funnelId, '--file', csv], {
      DATABASE_URL: url,
    });
    answers.push({ call: 'admin contact import', status: imported.code, body: imported.json });
    // Sorted by a unique field: contacts written by one statement tie on their times.
    for (const query of ['', '&limit=2', '&status=lead', '&page=1&limit=2']) {
      await call('GET', `${funnel}/contacts?sortField=email&sortOrder=1${query}`);
    }
    await call('GET', `${funnel}/contacts?sortField=email&sortOrder=-1`);
    const byDefault = await api.get(`${funnel}/contacts`);
    const emails = (byDefault.body?.data ?? []).map((c: { email: string }) => c.email).sort();
    record('GET {funnel}/contacts, emails of the default order', { ...byDefault, body: emails });
    const page = await call('GET', `${funnel}/contacts?limit=2&sortField=email&sortOrder=1`);
    const next = `${funnel}/contacts?limit=2&sortField=email&sortOrder=1&cursor=${page.body?.meta?.nextCursor}`;
    record('GET {funnel}/contacts, the next page', await api.get(next));
    await call('GET', `${funnel}/contacts/${ids[0]}`);
    await call('PUT', `${funnel}/contacts/${ids[0]}/values`, { fieldName: 'status', value: 'converted' });
    await call('PUT', `${funnel}/contacts/${ids[1]}/values`, { fieldName: 'score', value: '99' });
    await call('PATCH', `${funnel}/contacts/${ids[2]}`, {
      address: { city: 'Berlin' },
      properties: { code: 'k9', score: 1 },
    });
    await call('PATCH', `${funnel}/contacts/${ids[3]}`, { properties: { code: 'k0' } });
    for (const filters of [
      [{ field: 'properties.score', operator: 'gte', value: 50 }],
      [{ field: 'properties.renewal', operator: 'lt', value: '2027-06-01' }],
      [{ field: 'email', operator: 'starts_with', value: 'c' }],
      [{ field: 'properties.code', operator: 'eq', value: 'k9' }],
    ]) {
      await call('POST', `${funnel}/contacts/search`, {
        filterGroups: [{ filters }],
        sortField: 'email',
        sortOrder: 1,
      });
    }
    // An export streams the funnel as it lies on disk: its lines compared in order of their text.
    for (const format of ['ndjson', 'csv']) {
      const exported = await api.get(`${funnel}/contacts/export?format=${format}`);
      const lines = typeof exported.body === 'string' ? exported.body.trim().split(/\r?\n/) : [exported.body];
      record(`GET {funnel}/contacts/export?format=${format}`, {
        ...exported,
        body: lines.map((l) => withoutIdsOrTimes(l)).sort(),
      });
    }
    await publicRoutes(t.baseUrl, acme.funnelId, ids, record, call, t.app.get(MessageTokens));
    await call('DELETE', `${funnel}/contacts/${ids[3]}`);
    await call('DELETE', `${funnel}/contacts/${ids[3]}`);
    await call('GET', `${funnel}/contacts/${ids[3]}`);
    await call('GET', `${funnel}/contacts?limit=100&sortField=email&sortOrder=1`);

    await call('POST', `${funnel}/events`, { events: randomTraffic(7, 40) });
    const folded = await t.app
      .get(SegmentFolder)
      .drain()
      .then(
        () => 'folded',
        (error: Error) => error.message,
      );
    answers.push({ call: 'segment fold', status: 0, body: folded });
    const window = 'from=2026-05-10&to=2026-05-10';
    for (const path of [
      `charts/chart_page_to_page_conversion_rate?${window}`,
      `charts/chart_contacts_over_time?${window}`,
      `charts/chart_button_clicks?${window}`,
      `charts/chart_activity_by_daytime?${window}`,
      `charts/chart_page_to_page_conversion_rate?${window}&device=mobile`,
      `kpis/kpi_total_sessions?${window}`,
      `kpis/kpi_total_sessions?${window}&utmSource=google`,
      `kpis/kpi_messages_open_rate?${window}`,
      `kpis/kpi_average_time_on_page?${window}`,
      `insights/question_1?${window}`,
      `funnel?${window}&steps=page:start,page:details,page:done`,
    ]) {
      await call('GET', `${funnel}/metrics/${path}`);
    }
    // Retention of one month in mid-July drops May's raw events (folded above); the figures stay.
    const retention = new EventRetention(
      t.app.get(DataSource),
      t.app.get(EventPartitions),
      new ConfigService({ EVENT_RETENTION_MONTHS: 1 }),
    );
    const dropped = await retention.dropExpired(Date.parse('2026-07-15T00:00:00Z')).then(
      (names) => names,
      (error: Error) => error.message,
    );
    answers.push({ call: 'event retention', status: 0, body: dropped });
    await call('GET', `${funnel}/metrics/kpis/kpi_total_sessions?${window}`);
    await call('GET', `${funnel}/metrics/charts/chart_page_to_page_conversion_rate?${window}&device=mobile`);
    // One webhook per contact created through the API (four, the batch's one and the lead), delivered by the
    // worker; then no run is left to deliver.
    await receiver.waitFor(6);
    await untilNoRunIsDue(url, acme.funnelId);
    const deliveries = receiver.requests
      .map((r) => r.json)
      .sort((a, b) => withoutIdsOrTimes(a).localeCompare(withoutIdsOrTimes(b)));
    answers.push({ call: 'webhooks delivered', status: receiver.requests.length, body: deliveries });
    const automations = await runAdmin(['automation', 'list', '--funnel', acme.funnelId], {
      DATABASE_URL: url,
    });
    answers.push({ call: 'admin automation list', status: automations.code, body: automations.json });
    answers.push(...(await runAdminTraffic(url, acme.funnelId, receiver.url)));
    // The MCP tools, signed in as a user of the company.
    const { client: mcp } = await connectMcpClient(t, issuer, acme.companyId, 'citus-traffic');
    const period = { from: '2026-05-10T00:00:00Z', to: '2026-05-10T23:59:59Z' };
    for (const [name, args] of [
      ['list_workspaces', {}],
      ['list_contacts', { funnelId: acme.funnelId, email: 'c0@example.com' }],
      ['get_contact', { funnelId: acme.funnelId, contactId: ids[0] }],
      [
        'search_contacts',
        {
          funnelId: acme.funnelId,
          filterGroups: [{ filters: [{ field: 'properties.score', operator: 'gte', value: 50 }] }],
          sortField: 'email',
          sortOrder: 1,
        },
      ],
      ['create_contact', { funnelId: acme.funnelId, email: 'mcp@example.com' }],
      ['get_step_funnel', { funnelId: acme.funnelId, steps: ['page:start', 'page:details'], ...period }],
      ['get_insight_metrics', { funnelId: acme.funnelId, insightId: 'question_1', ...period }],
      ['get_funnel', { funnelId: acme.funnelId }],
      ['get_chart_metrics', { funnelId: acme.funnelId, subtype: 'chart_button_clicks', ...period }],
      ['get_kpi_metrics', { funnelId: acme.funnelId, subtype: 'kpi_total_sessions', ...period }],
      ['show_funnel_dashboard', { funnelId: acme.funnelId, from: '2026-05-10', to: '2026-05-10' }],
      [
        'update_contact_value',
        { funnelId: acme.funnelId, contactId: ids[0], fieldName: 'firstName', value: 'Zero' },
      ],
      ['update_contact', { funnelId: acme.funnelId, contactId: ids[1], lastName: 'One' }],
      [
        'upsert_contacts',
        {
          funnelId: acme.funnelId,
          upsertBy: 'email',
          contacts: [{ email: 'c0@example.com', lastName: 'Again' }],
        },
      ],
      ['delete_contact', { funnelId: acme.funnelId, contactId: ids[2] }],
    ] as const) {
      const result = (await mcp.callTool({ name, arguments: { ...args } })) as CallToolResult;
      answers.push({
        call: `mcp ${name}`,
        status: result.isError ? 1 : 0,
        body: result.structuredContent ?? result.content,
      });
    }
    await mcp.close();
    // The demo, all or nothing, and its first funnel's contacts as the API counts them.
    const demo = await runAdmin(['demo', 'seed'], { DATABASE_URL: url });
    answers.push({ call: 'admin demo seed', status: demo.code, body: demo.json });
    const demoFunnel = (demo.json.funnelIds as string[] | undefined)?.[0];
    const demoApi = httpClient(t.baseUrl, String(demo.json.apiKey));
    record('GET {demo funnel}/contacts', await demoApi.get(`/v1/funnels/${demoFunnel}/contacts?limit=1`));
    answers.push(...(await runOAuthTraffic(url)));
    return answers;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
    await receiver.close();
    await issuer.close();
  }
}

/**
 * The routes a page or a mailbox calls without a key: the tracker's collection and a lead form of a
 * visitor, an email's unsubscribe, open and click links (their tokens signed as a sent email's), and
 * the SMS gateway's signed report; then a contact's subscription written back through the API.
 */
async function publicRoutes(
  base: string,
  funnelId: string,
  ids: string[],
  record: (call: string, reply: Reply) => Reply,
  call: (method: string, path: string, body?: unknown) => Promise<Reply>,
  tokens: MessageTokens,
): Promise<void> {
  const browser = httpClient(base);
  const events = [
    { type: 'session_start', sessionId: 'web-1', occurredAt: secondsAgo(120) },
    { type: 'page_view', sessionId: 'web-1', occurredAt: secondsAgo(110), pageSlug: 'start' },
  ];
  record('POST {funnel}/collect', await browser.post(`/v1/funnels/${funnelId}/collect`, { events }, PAGE));
  const lead = { sessionId: 'web-1', fields: { email: 'lead@example.com', firstName: 'Lea' } };
  record('POST {funnel}/submissions', await browser.post(`/v1/funnels/${funnelId}/submissions`, lead, PAGE));
  const unsubscribe = tokens.sign({ kind: 'unsubscribe', funnelId, contactId: ids[1] });
  record('GET /email/unsubscribe/{token}', await browser.get(`/email/unsubscribe/${unsubscribe}`));
  record('POST /email/unsubscribe/{token}', await browser.send('POST', `/email/unsubscribe/${unsubscribe}`));
  await call('GET', `/v1/funnels/${funnelId}/contacts/${ids[1]}`);
  await call('PUT', `/v1/funnels/${funnelId}/contacts/${ids[1]}/email-subscription`, { subscribed: true });
  // No email was sent: a message that is not there answers as an altered token would.
  const messageId = randomUUID();
  record(
    'GET /email/open/{token}',
    await browser.get(`/email/open/${tokens.sign({ kind: 'open', funnelId, messageId })}`),
  );
  const click = tokens.sign({ kind: 'click', funnelId, messageId, link: 0 });
  record('GET /email/click/{token}', await browser.get(`/email/click/${click}`));
  const report = JSON.stringify({ messageId, status: 'delivered' });
  const signature = `sha256=${createHmac('sha256', SMS_SECRET).update(report).digest('hex')}`;
  const sms = await fetch(`${base}/sms/status`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature': signature },
    body: report,
  });
  record('POST /sms/status', { status: sms.status, body: await sms.text(), headers: sms.headers } as Reply);
}
