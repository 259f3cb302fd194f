import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { eventually } from './support/webhook-receiver';

jest.setTimeout(120_000);

const PAGE = 'http://127.0.0.1:5174';
const BROWSER_UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const PHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

/** The public routes as a page on an allowed origin (or another) calls them. */
describe('Browser collection (settings, collect, submissions)', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let db: DataSource;
  const page = (origin = PAGE, ua = BROWSER_UA, extra: Record<string, string> = {}) => ({
    origin,
    'user-agent': ua,
    ...extra,
  });
  const collect = (funnelId: string, events: unknown[], headers = page()) =>
    httpClient(t.baseUrl).post(`/v1/funnels/${funnelId}/collect`, { events }, headers);
  const submit = (funnelId: string, body: unknown, headers = page()) =>
    httpClient(t.baseUrl).post(`/v1/funnels/${funnelId}/submissions`, body, headers);
  const storedSession = async (sessionId: string) =>
    (
      await db.query('SELECT visitor_id, device, utm_source FROM metric_sessions WHERE session_id = $1', [
        sessionId,
      ])
    )[0];
  // A page is answered once its events are checked; they are stored right after.
  const sessionRow = (sessionId: string) => eventually(() => storedSession(sessionId));
  const eventCount = async (funnelId: string) =>
    Number((await db.query('SELECT count(*) AS n FROM metric_events WHERE funnel_id = $1', [funnelId]))[0].n);
  const contactsOf = async (tenant: TenantFixture) =>
    (await httpClient(t.baseUrl, tenant.key).get(`/v1/funnels/${tenant.funnelId}/contacts`)).body.data;

  beforeAll(async () => {
    t = await startTestApp({ SUBMIT_MIN_SECONDS: '30', SUBMIT_LIMIT_PER_ADDRESS: '1000' });
    db = t.app.get(DataSource);
    acme = await createTenant(t.app);
    const res = await httpClient(t.baseUrl, acme.key).send('PATCH', `/v1/funnels/${acme.funnelId}`, {
      collection: { enabled: true, allowedOrigins: [PAGE] },
    });
    expect(res.status).toBe(200);
  });
  afterAll(() => t.close());

  describe('settings', () => {
    it('shows collection off with no origin on a new funnel', async () => {
      const other = await createTenant(t.app);
      const res = await httpClient(t.baseUrl, other.key).get(`/v1/funnels/${other.funnelId}`);
      expect(res.body.data.collection).toEqual({ enabled: false, allowedOrigins: [] });
    });

    it('changes the settings with crm:write and shows them', async () => {
      const other = await createTenant(t.app);
      const api = httpClient(t.baseUrl, other.key);
      const patch = await api.send('PATCH', `/v1/funnels/${other.funnelId}`, {
        collection: {
          enabled: true,
          allowedOrigins: ['https://Funnel.Example.com', 'http://localhost:3000'],
        },
      });
      expect(patch.status).toBe(200);
      expect(patch.body.data.collection).toEqual({
        enabled: true,
        allowedOrigins: ['https://funnel.example.com', 'http://localhost:3000'],
      });
      const shown = await api.get(`/v1/funnels/${other.funnelId}`);
      expect(shown.body.data.collection).toEqual(patch.body.data.collection);
    });

    it('refuses what is not an origin, and collection on without one', async () => {
      const api = httpClient(t.baseUrl, acme.key);
      const path = `/v1/funnels/${acme.funnelId}`;
      for (const origin of [
        'http://example.com',
        'https://example.com/page',
        'ftp://example.com',
        'https://a.com:443',
      ])
        expect((await api.send('PATCH', path, { collection: { allowedOrigins: [origin] } })).status).toBe(
          400,
        );
      const none = await api.send('PATCH', path, { collection: { enabled: true, allowedOrigins: [] } });
      expect(none.body).toEqual({
        error: 'collection.enabled needs at least one allowed origin',
        status: 400,
        details: ['collection.enabled needs at least one allowed origin'],
      });
      expect((await api.send('PATCH', path, { name: 'x' })).status).toBe(400);
      expect((await api.get(path)).body.data.collection).toEqual({ enabled: true, allowedOrigins: [PAGE] });
    });

    it('needs crm:write, and another company’s funnel is 404', async () => {
      const readOnly = await acme.keyFor('crm:read');
      const body = { collection: { enabled: false } };
      const path = `/v1/funnels/${acme.funnelId}`;
      expect((await httpClient(t.baseUrl, readOnly).send('PATCH', path, body)).status).toBe(403);
      const other = await createTenant(t.app);
      expect((await httpClient(t.baseUrl, other.key).send('PATCH', path, body)).status).toBe(404);
    });
  });

  describe('POST /v1/funnels/{funnelId}/collect', () => {
    it('stores an allowed page’s events with the visitor and device decided by the service', async () => {
      const res = await collect(
        acme.funnelId,
        [
          {
            type: 'session_start',
            sessionId: 'c-1',
            occurredAt: minutesAgo(1),
            utm: { source: 'newsletter' },
          },
          {
            type: 'page_view',
            sessionId: 'c-1',
            occurredAt: minutesAgo(1),
            pageSlug: 'start',
            timeOnPageMs: 900,
          },
        ],
        page(PAGE, PHONE_UA),
      );
      expect(res.status).toBe(202);
      expect(res.body).toBeUndefined();
      expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
      const session = await sessionRow('c-1');
      expect(session.visitor_id).toMatch(/^[0-9a-f]{32}$/);
      expect(session).toMatchObject({ device: 'mobile', utm_source: 'newsletter' });

      // The same browser the same day is the same visitor; another one is not.
      const start = (sessionId: string) => [{ type: 'session_start', sessionId, occurredAt: minutesAgo(1) }];
      await collect(acme.funnelId, start('c-2'), page(PAGE, PHONE_UA));
      await collect(acme.funnelId, start('c-3'), page(PAGE, BROWSER_UA));
      await collect(acme.funnelId, start('c-4'), page(PAGE, PHONE_UA, { 'sec-gpc': '1' }));
      expect((await sessionRow('c-2')).visitor_id).toBe(session.visitor_id);
      expect((await sessionRow('c-3')).visitor_id).not.toBe(session.visitor_id);
      expect((await sessionRow('c-3')).device).toBe('desktop');
      expect((await sessionRow('c-4')).visitor_id).not.toBe(session.visitor_id);
    });

    it('accepts a text/plain body (a beacon)', async () => {
      const events = [{ type: 'session_start', sessionId: 'c-text', occurredAt: minutesAgo(1) }];
      const res = await httpClient(t.baseUrl).post(
        `/v1/funnels/${acme.funnelId}/collect`,
        JSON.stringify({ events }),
        {
          ...page(),
          'content-type': 'text/plain;charset=UTF-8',
        },
      );
      expect(res.status).toBe(202);
      expect(await sessionRow('c-text')).toBeDefined();
    });

    it('changes nothing for another origin, a funnel without collection, or a bot', async () => {
      const before = await eventCount(acme.funnelId);
      const events = [{ type: 'session_start', sessionId: 'c-bad', occurredAt: minutesAgo(1) }];
      const refused = await collect(acme.funnelId, events, page('https://evil.example'));
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      const off = await createTenant(t.app);
      expect((await collect(off.funnelId, events)).status).toBe(403);
      const bot = await collect(acme.funnelId, events, page(PAGE, 'Mozilla/5.0 (compatible; Googlebot/2.1)'));
      expect(bot.status).toBe(202);
      expect(await eventCount(acme.funnelId)).toBe(before);
    });

    it('refuses what a page may not decide, and what the events API refuses', async () => {
      const at = minutesAgo(1);
      const cases = [
        { type: 'session_start', sessionId: 'c-v', occurredAt: at, visitorId: 'me' },
        {
          type: 'conversion',
          sessionId: 'c-v',
          occurredAt: at,
          contactId: '0b5a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b',
        },
        {
          type: 'message_opened',
          sessionId: 'c-v',
          occurredAt: at,
          messageId: '0b5a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b',
        },
        { type: 'page_view', sessionId: 'c-v', occurredAt: at, pageSlug: 'not a slug' },
      ];
      for (const event of cases) expect((await collect(acme.funnelId, [event])).status).toBe(400);
      expect(await storedSession('c-v')).toBeUndefined();
    });

    it('answers a beacon’s refusals as a JSON body’s: same status, error shape and CORS headers', async () => {
      const beacon = (body: string, origin = PAGE) =>
        httpClient(t.baseUrl).post(`/v1/funnels/${acme.funnelId}/collect`, body, {
          ...page(origin),
          'content-type': 'text/plain;charset=UTF-8',
        });
      const json = (body: string, origin = PAGE) =>
        httpClient(t.baseUrl).post(`/v1/funnels/${acme.funnelId}/collect`, body, {
          ...page(origin),
          'content-type': 'application/json',
        });
      const visitor = JSON.stringify({
        events: [{ type: 'session_start', sessionId: 'c-b', occurredAt: minutesAgo(1), visitorId: 'me' }],
      });
      const cases: [string, string?][] = [[visitor], ['{"events": 3}'], [visitor, 'https://evil.example']];
      for (const [body, origin] of cases) {
        const [plain, parsed] = [await beacon(body, origin), await json(body, origin)];
        expect(plain.status).toBe(origin ? 403 : 400);
        expect([plain.status, plain.body]).toEqual([parsed.status, parsed.body]);
        expect(plain.body).toEqual(
          expect.objectContaining({ status: plain.status, error: expect.any(String) }),
        );
        for (const name of ['access-control-allow-origin', 'vary'])
          expect([name, plain.headers.get(name)]).toEqual([name, parsed.headers.get(name)]);
        expect(plain.headers.get('x-request-id')).toEqual(expect.any(String));
      }
      const malformed = await beacon('{"events": [');
      expect([malformed.status, malformed.body]).toEqual([
        400,
        { error: 'the body must be JSON', status: 400 },
      ]);
      expect(malformed.headers.get('access-control-allow-origin')).toBe(PAGE);
      expect(await storedSession('c-b')).toBeUndefined();
    });

    it('answers a preflight with CORS headers for an allowed origin only', async () => {
      const preflight = (origin: string) =>
        fetch(`${t.baseUrl}/v1/funnels/${acme.funnelId}/collect`, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
          },
        });
      const allowed = await preflight(PAGE);
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(PAGE);
      expect(allowed.headers.get('access-control-allow-methods')).toBe('POST');
      const refused = await preflight('https://evil.example');
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('POST /v1/funnels/{funnelId}/submissions', () => {
    const visit = async (sessionId: string, startedMinutesAgo: number) => {
      const res = await collect(acme.funnelId, [
        {
          type: 'session_start',
          sessionId,
          occurredAt: minutesAgo(startedMinutesAgo),
          utm: { source: 'facebook', campaign: 'autumn', content: 'ad-7' },
        },
        { type: 'page_view', sessionId, occurredAt: minutesAgo(startedMinutesAgo - 0.5), pageSlug: 'start' },
        { type: 'page_view', sessionId, occurredAt: minutesAgo(startedMinutesAgo - 1), pageSlug: 'details' },
        { type: 'completion', sessionId, occurredAt: minutesAgo(startedMinutesAgo - 1) },
        {
          type: 'answer',
          sessionId,
          occurredAt: minutesAgo(startedMinutesAgo - 1),
          questionId: 'question_2',
          questionTitle: 'Budget?',
          answers: ['Small'],
        },
      ]);
      expect(res.status).toBe(202);
    };
    const lead = (sessionId: string, fields: object, extra: object = {}) => ({
      sessionId,
      fields,
      answers: [{ questionId: 'question_1', answers: ['Grow', 'Save time'] }],
      page: { timezone: 'Europe/Berlin', embed: false },
      ...extra,
    });

    it('creates the contact with the session’s meta, first UTM and answers, and links the conversion', async () => {
      await visit('s-new', 5);
      const res = await submit(
        acme.funnelId,
        lead('s-new', { email: 'new@example.com', firstName: 'Nia', consent: 'on' }),
      );
      expect(res.status).toBe(202);
      expect(res.body).toBeUndefined();
      const [contact] = (await contactsOf(acme)).filter(
        (c: { email: string }) => c.email === 'new@example.com',
      );
      expect(contact).toMatchObject({
        firstName: 'Nia',
        utmParams: { utm_source: 'facebook', utm_campaign: 'autumn', utm_content: 'ad-7' },
        properties: { question_1: 'Grow, Save time', question_2: 'Small' },
        meta: {
          ps_source: 'funnel',
          ps_start_slug: 'start',
          ps_start_page: 'Start',
          ps_end_slug: 'details',
          ps_result_page: 'Details',
          ps_timezone: 'Europe/Berlin',
          ps_embed: false,
          ps_first_seen_at: expect.any(String),
          ps_last_seen_at: expect.any(String),
          ps_completed_at: expect.any(String),
          ps_converted_at: expect.any(String),
        },
      });
      // The conversion is written after the answer.
      const conversions = await eventually(async () => {
        const rows = await db.query(
          `SELECT payload->>'contactId' AS contact FROM metric_events WHERE funnel_id = $1 AND session_id = 's-new' AND type = 'conversion'`,
          [acme.funnelId],
        );
        return rows.length ? rows : undefined;
      });
      expect(conversions).toEqual([{ contact: contact.id }]);
      const session = await db.query(`SELECT converted_at FROM metric_sessions WHERE session_id = 's-new'`);
      expect(session[0].converted_at).not.toBeNull();
    });

    it('fills only what an existing contact lacks, never what the API set', async () => {
      const api = httpClient(t.baseUrl, acme.key);
      const created = await api.post(`/v1/funnels/${acme.funnelId}/contacts`, {
        email: 'Known@Example.com',
        firstName: 'Kim',
      });
      expect(created.status).toBe(201);
      await visit('s-known', 5);
      const res = await submit(
        acme.funnelId,
        lead('s-known', {
          email: 'known@example.com',
          firstName: 'Mallory',
          lastName: 'Kay',
          phone: '+49 151 1234567',
        }),
      );
      expect(res.status).toBe(202);
      const contact = (await api.get(`/v1/funnels/${acme.funnelId}/contacts/${created.body.data.id}`)).body
        .data;
      expect(contact).toMatchObject({
        email: 'Known@Example.com',
        firstName: 'Kim',
        lastName: 'Kay',
        phone: '+49 151 1234567',
        utmParams: { utm_source: 'facebook' },
        meta: { ps_source: 'external-api', ps_start_slug: 'start' },
      });
      expect((await contactsOf(acme)).filter((c: { email: string }) => /known/i.test(c.email))).toHaveLength(
        1,
      );
    });

    it('stores nothing for a honeypot, a session too young or unknown, a bot, or another origin', async () => {
      await visit('s-young', 0);
      const before = (await contactsOf(acme)).length;
      const cases = [
        submit(acme.funnelId, lead('s-known', { email: 'trap@example.com' }, { trap: 'http://spam' })),
        submit(acme.funnelId, lead('s-young', { email: 'young@example.com' })),
        submit(acme.funnelId, lead('s-never', { email: 'never@example.com' })),
        submit(acme.funnelId, lead('s-known', { email: 'bot@example.com' }), page(PAGE, 'curl/8.5.0')),
      ];
      for (const res of await Promise.all(cases)) expect(res.status).toBe(202);
      const refused = await submit(
        acme.funnelId,
        lead('s-known', { email: 'x@example.com' }),
        page('https://evil.example'),
      );
      expect(refused.status).toBe(403);
      expect((await contactsOf(acme)).length).toBe(before);
    });

    it('refuses a lead without email or phone, or with a field its rule refuses', async () => {
      const none = await submit(acme.funnelId, lead('s-known', { firstName: 'Nobody' }));
      expect(none.status).toBe(400);
      expect(none.body.error).toBe('email or phone is required');
      expect((await submit(acme.funnelId, lead('s-known', { email: 'not-an-email' }))).status).toBe(400);
    });
  });

  it('links a session to the contact a conversion of the events API names', async () => {
    await collect(acme.funnelId, [
      { type: 'session_start', sessionId: 's-api', occurredAt: minutesAgo(3), utm: { source: 'partner' } },
      { type: 'page_view', sessionId: 's-api', occurredAt: minutesAgo(2), pageSlug: 'done' },
    ]);
    const api = httpClient(t.baseUrl, acme.key);
    const created = await api.post(`/v1/funnels/${acme.funnelId}/contacts`, {
      email: 'api-lead@example.com',
    });
    const conversion = {
      type: 'conversion',
      sessionId: 's-api',
      occurredAt: minutesAgo(1),
      contactId: created.body.data.id,
    };
    expect((await api.post(`/v1/funnels/${acme.funnelId}/events`, { events: [conversion] })).status).toBe(
      202,
    );
    const contact = (await api.get(`/v1/funnels/${acme.funnelId}/contacts/${created.body.data.id}`)).body
      .data;
    expect(contact.utmParams).toEqual({ utm_source: 'partner' });
    expect(contact.meta).toMatchObject({
      ps_source: 'external-api',
      ps_start_slug: 'done',
      ps_end_slug: 'done',
    });
  });
});

describe('Browser collection limits', () => {
  let t: TestApp;
  let acme: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp({
      SUBMIT_LIMIT_PER_ADDRESS: '2',
      COLLECT_LIMIT_PER_ADDRESS: '3',
      SUBMIT_MIN_SECONDS: '0',
    });
    acme = await createTenant(t.app);
    await httpClient(t.baseUrl, acme.key).send('PATCH', `/v1/funnels/${acme.funnelId}`, {
      collection: { enabled: true, allowedOrigins: [PAGE] },
    });
  });
  afterAll(() => t.close());

  it('answers 429 with Retry-After past the limit of a client address, and stores nothing then', async () => {
    const headers = { origin: PAGE, 'user-agent': BROWSER_UA };
    const client = httpClient(t.baseUrl);
    const events = (n: number) => ({
      events: [{ type: 'session_start', sessionId: `l-${n}`, occurredAt: minutesAgo(1) }],
    });
    const statuses = [];
    for (let n = 0; n < 4; n++)
      statuses.push((await client.post(`/v1/funnels/${acme.funnelId}/collect`, events(n), headers)).status);
    expect(statuses).toEqual([202, 202, 202, 429]);
    const stored = await t.app
      .get(DataSource)
      .query(`SELECT session_id FROM metric_sessions WHERE session_id = 'l-3'`);
    expect(stored).toEqual([]);

    const lead = (email: string) => ({ sessionId: 'l-0', fields: { email } });
    const path = `/v1/funnels/${acme.funnelId}/submissions`;
    expect((await client.post(path, lead('a@example.com'), headers)).status).toBe(202);
    expect((await client.post(path, lead('b@example.com'), headers)).status).toBe(202);
    const over = await client.post(path, lead('c@example.com'), headers);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.body).toMatchObject({ error: 'Rate limit exceeded', status: 429 });
    const emails = (
      await httpClient(t.baseUrl, acme.key).get(`/v1/funnels/${acme.funnelId}/contacts`)
    ).body.data.map((c: { email: string }) => c.email);
    expect(emails.sort()).toEqual(['a@example.com', 'b@example.com']);
  });
});
