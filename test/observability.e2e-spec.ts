import { AutomationsService } from '@app/automations';
import { MetricsServer, ShutdownState } from '@app/core';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient, Reply } from './support/http-client';
import { Sample, scrape, sumOf } from './support/prometheus';
import { startTokenIssuer, TestTokenIssuer } from './support/token-issuer';
import { eventually, WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(60_000);

const AUDIENCE = 'https://api.funnel.example';
const NAMESPACE = 'https://funnel.example';
const EMAIL = 'ada.lovelace@example.com';
const PHONE = '+4915112345678';
const BODY_MARKER = 'Analytical-Engine-Notes';
const WEBHOOK_SECRET = 'whsec-observability-0123456789abcdef';
const ACCESS_FIELDS = [
  'level',
  'time',
  'reqId',
  'msg',
  'method',
  'route',
  'status',
  'durationMs',
  'companyId',
  'keyPrefix',
  'subject',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type LogLine = Record<string, unknown>;

/** A pino destination keeping every line written, raw and parsed. */
class CapturedLines {
  readonly raw: string[] = [];
  write(chunk: string): void {
    this.raw.push(...chunk.split('\n').filter(Boolean));
  }
  get lines(): LogLine[] {
    return this.raw.map((line) => JSON.parse(line) as LogLine);
  }
  of(reqId: string | null): LogLine[] {
    return this.lines.filter((line) => line.reqId === reqId);
  }
}

describe('Request logs and metrics', () => {
  const captured = new CapturedLines();
  let issuer: TestTokenIssuer;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let tenant: TenantFixture;
  let limitedKey: string;
  let token: string;
  let metricsPort: number;
  let before: Sample[];
  const replies: Record<string, Reply> = {};

  beforeAll(async () => {
    issuer = await startTokenIssuer({ audience: AUDIENCE });
    receiver = await WebhookReceiver.start();
    t = await startTestApp(
      {
        LOG_LEVEL: 'log',
        RATE_LIMIT_PER_MINUTE: '20',
        AUTOMATION_POLL_INTERVAL_MS: '20',
        IDP_URL: issuer.url,
        OAUTH_CLIENT_ID: 'shared-client-id',
        OAUTH_AUDIENCE: AUDIENCE,
        OAUTH_CLAIM_NAMESPACE: NAMESPACE,
      },
      undefined,
      captured,
    );
    tenant = await createTenant(t.app);
    limitedKey = await tenant.keyFor('crm:read');
    token = await issuer.sign({
      sub: 'user-42',
      [`${NAMESPACE}/user_metadata`]: { companyId: tenant.companyId, subscriptionId: 'sub_1' },
    });
    await t.app.get(AutomationsService).create({
      funnelId: tenant.funnelId,
      on: 'contact.created',
      webhook: receiver.url,
      secret: WEBHOOK_SECRET,
    });
    metricsPort = t.app.get(MetricsServer).port!;
    before = await scrape(metricsPort);

    const api = httpClient(t.baseUrl, tenant.key);
    const contacts = `/v1/funnels/${tenant.funnelId}/contacts`;
    replies.created = await api.post(
      contacts,
      { email: EMAIL, phone: PHONE, firstName: BODY_MARKER },
      { 'x-request-id': 'client-req-1' },
    );
    replies.read = await api.get(`${contacts}/${replies.created.body.data.id}`, {
      'x-request-id': 'has spaces in it',
    });
    replies.listed = await api.get(contacts, { 'x-request-id': 'x'.repeat(129) });
    replies.events = await api.post(`/v1/funnels/${tenant.funnelId}/events`, {
      events: [1, 2, 3].map((i) => ({
        type: 'session_start',
        sessionId: `s-${i}`,
        occurredAt: '2026-03-02T10:00:00Z',
        visitorId: `v-${i}`,
        device: 'mobile',
      })),
    });
    replies.malformed = await api.post(contacts, `{"email": "${EMAIL}`);
    replies.badKey = await httpClient(t.baseUrl, `fcrm_0123456789ab_${'A'.repeat(43)}`).get(contacts);
    const limited = httpClient(t.baseUrl, limitedKey);
    for (let i = 0; i < 22 && !replies.refused; i++) {
      const reply = await limited.get(contacts);
      if (reply.status === 429) replies.refused = reply;
    }
    replies.mcp = await httpClient(t.baseUrl).post(
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream' },
    );
    // The beacon door, served ahead of Express: an accepted beacon, and a refused one it hands on.
    await api.send('PATCH', `/v1/funnels/${tenant.funnelId}`, {
      collection: { enabled: true, allowedOrigins: ['https://page.example'] },
    });
    const beacon = (body: string) =>
      httpClient(t.baseUrl).post(`/v1/funnels/${tenant.funnelId}/collect`, body, {
        origin: 'https://page.example',
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36',
        'content-type': 'text/plain;charset=UTF-8',
      });
    replies.beacon = await beacon(
      JSON.stringify({
        events: [{ type: 'session_start', sessionId: 'b-1', occurredAt: '2026-03-02T10:00:00Z' }],
      }),
    );
    replies.badBeacon = await beacon('{"events": [');
    t.app.get(ShutdownState).draining = true;
    replies.stopping = await httpClient(t.baseUrl).get('/health');
    t.app.get(ShutdownState).draining = false;
    await eventually(async () => receiver.requests.length > 0);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await issuer?.close();
  });

  const idOf = (reply: Reply) => reply.headers.get('x-request-id');
  const accessLineOf = (reply: Reply) => {
    const lines = captured.of(idOf(reply)).filter((line) => line.msg === 'request');
    expect(lines).toHaveLength(1);
    return lines[0];
  };

  it('answers every request, refusals included, with its X-Request-Id', () => {
    expect(replies.created.status).toBe(201);
    expect(idOf(replies.created)).toBe('client-req-1');
    for (const name of [
      'read',
      'listed',
      'events',
      'malformed',
      'badKey',
      'refused',
      'mcp',
      'stopping',
      'beacon',
    ]) {
      expect([name, idOf(replies[name])]).toEqual([name, expect.stringMatching(UUID)]);
    }
    expect(replies.events.body).toEqual({ data: { accepted: 3 } });
    expect([replies.malformed.status, replies.badKey.status, replies.refused.status]).toEqual([
      400, 401, 429,
    ]);
    expect(replies.stopping.status).toBe(503);
  });

  it('writes one access line per request with the route template, status, duration and caller only', () => {
    const created = accessLineOf(replies.created);
    expect(created).toMatchObject({
      level: 'info',
      method: 'POST',
      route: '/v1/funnels/:funnelId/contacts',
      status: 201,
      companyId: tenant.companyId,
      keyPrefix: tenant.key.split('_')[1],
    });
    expect(created.durationMs).toEqual(expect.any(Number));
    expect(accessLineOf(replies.read)).toMatchObject({ route: '/v1/funnels/:funnelId/contacts/:contactId' });
    expect(accessLineOf(replies.malformed)).toMatchObject({ status: 400 });
    const refusedKey = accessLineOf(replies.badKey);
    expect([refusedKey.status, refusedKey.companyId, refusedKey.keyPrefix]).toEqual([
      401,
      undefined,
      undefined,
    ]);
    expect(accessLineOf(replies.refused)).toMatchObject({ status: 429 });
    expect(accessLineOf(replies.mcp)).toMatchObject({
      route: '/mcp',
      status: 200,
      companyId: tenant.companyId,
      subject: 'user-42',
    });
    const beacon = { method: 'POST', route: '/v1/funnels/:funnelId/collect' };
    expect(accessLineOf(replies.beacon)).toMatchObject({ ...beacon, status: 202 });
    expect(accessLineOf(replies.badBeacon)).toMatchObject({ ...beacon, status: 400 });
    for (const line of captured.lines.filter((l) => l.msg === 'request')) {
      expect(Object.keys(line).filter((key) => !ACCESS_FIELDS.includes(key))).toEqual([]);
    }
  });

  it('stamps the request id on the other lines logged while serving the request', () => {
    const lines = captured.of(idOf(replies.stopping));
    expect(lines.map((line) => line.msg)).toEqual([expect.stringMatching(/GET \/health failed/), 'request']);
    expect(lines[0]).toMatchObject({ level: 'error', context: 'HTTP' });
  });

  it('never logs a key, token, webhook secret, request body, email or phone number', () => {
    const text = captured.raw.join('\n');
    expect(captured.raw.length).toBeGreaterThan(10);
    for (const secret of [tenant.key, limitedKey, token, WEBHOOK_SECRET, EMAIL, PHONE, BODY_MARKER]) {
      expect(text.includes(secret)).toBe(false);
    }
    // The secret is all after the prefix (it may itself contain '_').
    const secret = tenant.key.slice(`fcrm_${tenant.key.split('_')[1]}_`.length);
    expect(secret).toHaveLength(43);
    expect(text.includes(secret)).toBe(false);
  });

  it('serves Prometheus metrics on the metrics port only, with the counts moved by the traffic', async () => {
    expect((await fetch(`${t.baseUrl}/metrics`)).status).toBe(404);
    const after = await scrape(metricsPort);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sumOf(after, name, labels) - sumOf(before, name, labels);
    expect(
      moved('http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/funnels/:funnelId/contacts',
        status: '201',
      }),
    ).toBe(1);
    expect(moved('http_request_duration_seconds_count', { status: '429' })).toBe(1);
    expect(moved('http_rate_limit_refusals_total', { throttler: 'api' })).toBe(1);
    expect(moved('events_ingested_total', { outcome: 'accepted' })).toBe(3);
    expect(moved('event_batch_size_count')).toBe(1);
    expect(moved('event_batch_size_sum')).toBe(3);
    expect(moved('automation_delivery_duration_seconds_count', { outcome: 'succeeded' })).toBe(1);
    for (const name of ['automation_runs', 'db_pool_connections', 'db_pool_waiting_requests']) {
      expect(after.some((s) => s.name === name)).toBe(true);
    }
    expect(sumOf(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });
});
