import { request } from 'node:http';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { EventsService, trackedEvent } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

const start = (sessionId: string, occurredAt: string, extra: Record<string, unknown> = {}) => ({
  type: 'session_start',
  sessionId,
  occurredAt,
  visitorId: `v-${sessionId}`,
  device: 'mobile',
  ...extra,
});
const view = (
  sessionId: string,
  occurredAt: string,
  pageSlug = 'start',
  extra: Record<string, unknown> = {},
) => ({
  type: 'page_view',
  sessionId,
  occurredAt,
  pageSlug,
  ...extra,
});

const WINDOW = 'from=2026-03-01T00:00:00Z&to=2026-03-31T23:59:59.999Z';

describe('POST /v1/funnels/{funnelId}/events', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10000' });
    acme = await createTenant(t.app);
    globex = await createTenant(t.app);
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const api = (key = acme.key) => httpClient(t.baseUrl, key);
  const send = (events: unknown[], funnelId = acme.funnelId, key = acme.key) =>
    api(key).post(`/v1/funnels/${funnelId}/events`, { events });
  const kpi = async (subtype: string, funnelId = acme.funnelId, query = WINDOW) =>
    (await api().get(`/v1/funnels/${funnelId}/metrics/kpis/${subtype}?${query}`)).body.data;
  const storedEvents = async (funnelId = acme.funnelId) =>
    Number((await db.query('SELECT count(*) AS n FROM metric_events WHERE funnel_id = $1', [funnelId]))[0].n);

  it('answers 202 with the number of events recorded', async () => {
    const res = await send([start('a1', '2026-03-02T10:00:00Z'), view('a1', '2026-03-02T10:00:05Z')]);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { accepted: 2 } });
    expect(await kpi('kpi_total_sessions')).toEqual({ type: 'kpiTotalSessions', value: 1 });
  });

  it('counts an event sent twice once, within a batch and across batches', async () => {
    const batch = [
      start('d1', '2026-03-03T10:00:00Z'),
      start('d1', '2026-03-03T10:00:00Z'),
      view('d1', '2026-03-03T10:00:01Z', 'start', { timeOnPageMs: 1000 }),
    ];
    expect((await send(batch)).body).toEqual({ data: { accepted: 2 } });
    // The same instant written differently is the same event; a different content is another one.
    const again = [
      start('d1', '2026-03-03T12:00:00.000+02:00'),
      view('d1', '2026-03-03T10:00:01Z', 'start', { timeOnPageMs: 1000 }),
      view('d1', '2026-03-03T10:00:01Z', 'start', { timeOnPageMs: 2000 }),
    ];
    expect((await send(again)).body).toEqual({ data: { accepted: 1 } });
    expect(await kpi('kpi_total_sessions', acme.funnelId, 'from=2026-03-03&to=2026-03-03')).toEqual({
      type: 'kpiTotalSessions',
      value: 1,
    });
    expect(await kpi('kpi_average_time_on_page', acme.funnelId, 'from=2026-03-03&to=2026-03-03')).toEqual({
      type: 'kpiAverageTimeOnPage',
      value: 1.5,
      count: 2,
    });
  });

  it('accepts a batch of 1000 events (a body well over 100 kB)', async () => {
    const events = Array.from({ length: 1000 }, (_, i) =>
      view(`big-${i % 50}`, new Date(Date.UTC(2026, 2, 10, 8, 0, i)).toISOString(), 'details', {
        timeOnPageMs: 1000 + i,
      }),
    );
    expect(JSON.stringify({ events }).length).toBeGreaterThan(100_000);
    const res = await send(events);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { accepted: 1000 } });
  });

  it('refuses the whole batch when one event is invalid, naming its index', async () => {
    const before = await storedEvents();
    const res = await send([
      start('bad1', '2026-03-04T10:00:00Z'),
      start('bad1', '2026-03-04T10:00:00Z', { device: 'phone' }),
      {
        type: 'page_view',
        sessionId: 'bad1',
        occurredAt: '2026-03-04 10:00',
        pageSlug: 'start',
        colour: 'red',
      },
    ]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'events[1].device must be one of mobile, desktop, tablet, other',
      status: 400,
      details: [
        'events[1].device must be one of mobile, desktop, tablet, other',
        'events[2].occurredAt must be an ISO 8601 date-time with a time zone (e.g. 2025-01-31T09:30:00Z)',
        'events[2].colour is not a recognised field of page_view',
      ],
    });
    expect(await storedEvents()).toBe(before);
  });

  const at = '2026-03-01T00:00:00Z';
  const one = (event: Record<string, unknown>) => ({
    events: [{ sessionId: 's', occurredAt: at, ...event }],
  });
  it.each<[string, unknown, string]>([
    ['a body without events', {}, 'events must be an array of 1 to 1000 events'],
    ['an empty batch', { events: [] }, 'events must be an array of 1 to 1000 events'],
    [
      '1001 events',
      { events: Array.from({ length: 1001 }, () => ({})) },
      'events must be an array of 1 to 1000 events',
    ],
    [
      'an unknown body member',
      { ...one({ type: 'completion' }), extra: 1 },
      'extra is not a recognised field',
    ],
    ['an unknown type', one({ type: 'scroll' }), 'events[0].type must be one of session_start, page_view'],
    [
      'a missing sessionId',
      { events: [{ type: 'completion', occurredAt: at }] },
      'events[0].sessionId is required',
    ],
    [
      'a time far in the future',
      one({ type: 'completion', occurredAt: '2099-01-01T00:00:00Z' }),
      'events[0].occurredAt must lie between',
    ],
    [
      'an impossible date',
      one({ type: 'completion', occurredAt: '2026-02-30T00:00:00Z' }),
      'events[0].occurredAt must be an ISO',
    ],
    [
      'a bad page slug',
      one({ type: 'page_view', pageSlug: 'a b' }),
      'events[0].pageSlug must be a page slug',
    ],
    [
      'a negative time on page',
      one({ type: 'page_view', pageSlug: 'a', timeOnPageMs: -1 }),
      'events[0].timeOnPageMs must be an integer',
    ],
    [
      'a bad question id',
      one({ type: 'answer', questionId: 'q1', questionTitle: 'T', answers: ['A'] }),
      'events[0].questionId must be question_<n>',
    ],
    [
      'no answers',
      one({ type: 'answer', questionId: 'question_1', questionTitle: 'T', answers: [] }),
      'events[0].answers must be 1 to 20 strings',
    ],
    [
      'a message id that is not a UUID',
      one({ type: 'message_opened', messageId: 'm-1' }),
      'events[0].messageId must be a UUID',
    ],
    [
      'an unknown utm member',
      one({ type: 'session_start', visitorId: 'v', device: 'mobile', utm: { channel: 'y' } }),
      'events[0].utm.channel is not a recognised field',
    ],
    [
      'an unknown A/B variant',
      one({ type: 'session_start', visitorId: 'v', device: 'mobile', abVariant: 'b' }),
      'events[0].abVariant must be one of original, variant',
    ],
    ['a missing device', one({ type: 'session_start', visitorId: 'v' }), 'events[0].device is required'],
  ])('answers 400 for %s', async (_, body, message) => {
    const res = await api().post(`/v1/funnels/${acme.funnelId}/events`, body);
    expect(res.status).toBe(400);
    expect(res.body.status).toBe(400);
    expect(res.body.error).toContain(message);
  });

  it('answers 413 for a body over 1 MB', async () => {
    const res = await api().post(`/v1/funnels/${acme.funnelId}/events`, {
      events: [],
      pad: 'x'.repeat(1_100_000),
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'Request body too large (limit 1 MB)', status: 413 });
  });

  it('reads at most 16 large batches at once: one more gets 503 with Retry-After, a small one is served', async () => {
    const url = new URL(`/v1/funnels/${acme.funnelId}/events`, t.baseUrl);
    const headers = { 'x-service-api-key': acme.key, 'content-type': 'application/json' };
    // Sixteen large bodies that never finish arriving hold the route's sixteen places.
    const held = Array.from({ length: 16 }, () => {
      const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': '500000' } });
      req.on('error', () => undefined);
      req.write('{"events":[');
      return req;
    });
    const large = () =>
      fetch(url, { method: 'POST', headers, body: JSON.stringify({ events: [], pad: 'x'.repeat(200_000) }) });
    const until = async (done: (status: number) => boolean) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const res = await large();
        if (done(res.status) || Date.now() > deadline) return res;
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    try {
      const refused = await until((status) => status === 503);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toEqual({ error: 'Service unavailable', status: 503 });
      expect((await send([view('small-while-full', '2026-03-02T10:00:00Z')])).status).toBe(202);
    } finally {
      held.forEach((req) => req.destroy());
    }
    // Once they are gone, a large body is read again (and refused for what it holds).
    expect((await until((status) => status !== 503)).status).toBe(400);
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await api().post(`/v1/funnels/${acme.funnelId}/events`, '{"events": [');
    expect(res.status).toBe(400);
  });

  it('answers 403 without events:write and 401 without a key', async () => {
    const readOnly = await acme.keyFor('metrics:read', 'crm:write');
    const res = await send([view('x', '2026-03-01T00:00:00Z')], acme.funnelId, readOnly);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'API key lacks the required permission: events:write', status: 403 });
    expect(
      (await httpClient(t.baseUrl).post(`/v1/funnels/${acme.funnelId}/events`, { events: [] })).status,
    ).toBe(401);
  });

  it("answers 404 for another company's funnel and stores nothing", async () => {
    const before = await storedEvents(globex.funnelId);
    const res = await send([view('x', '2026-03-01T00:00:00Z')], globex.funnelId, acme.key);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Funnel not found', status: 404 });
    expect(await storedEvents(globex.funnelId)).toBe(before);
    const bad = await send([view('x', '2026-03-01T00:00:00Z')], 'not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'funnelId must be a UUID', status: 400 });
  });

  it('counts the facts of a session whose session_start arrives after them, once it arrives', async () => {
    const q = 'from=2026-03-05&to=2026-03-05';
    await send([
      view('late', '2026-03-05T09:00:10Z', 'start'),
      { type: 'conversion', sessionId: 'late', occurredAt: '2026-03-05T09:05:00Z' },
    ]);
    expect(await kpi('kpi_total_sessions', acme.funnelId, q)).toEqual({ type: 'kpiTotalSessions', value: 0 });
    expect(await kpi('kpi_conversion_rate', acme.funnelId, q)).toEqual({
      type: 'kpiConversionRate',
      value: 0,
      count: 0,
    });
    await send([start('late', '2026-03-05T09:00:00Z')]);
    expect(await kpi('kpi_conversion_rate', acme.funnelId, q)).toEqual({
      type: 'kpiConversionRate',
      value: 100,
      count: 1,
    });
  });

  it('moves a session to an earlier session_start that arrives later', async () => {
    await send([
      start('moved', '2026-03-07T00:30:00Z', { device: 'desktop' }),
      view('moved', '2026-03-07T00:31:00Z', 'details'),
    ]);
    const day = (d: string) => `from=2026-03-${d}&to=2026-03-${d}`;
    const devices = async (d: string) =>
      (await api().get(`/v1/funnels/${acme.funnelId}/metrics/charts/chart_visitor_devices?${day(d)}`)).body
        .data;
    expect((await devices('07')).find((p: { key: string }) => p.key === 'desktop').value).toBe(1);
    await send([start('moved', '2026-03-06T23:50:00Z', { device: 'tablet' })]);
    expect(await devices('07')).toEqual([
      { key: 'mobile', value: 0, relativeValue: 0 },
      { key: 'desktop', value: 0, relativeValue: 0 },
      { key: 'tablet', value: 0, relativeValue: 0 },
      { key: 'other', value: 0, relativeValue: 0 },
    ]);
    expect((await devices('06')).find((p: { key: string }) => p.key === 'tablet')).toEqual({
      key: 'tablet',
      value: 1,
      relativeValue: 1,
    });
    const pages = await api().get(
      `/v1/funnels/${acme.funnelId}/metrics/charts/chart_page_to_page_conversion_rate?${day('06')}`,
    );
    expect(pages.body.data[1]).toEqual({ key: 'details', name: 'Details', value: 1, relativeValue: 0 });
  });

  it('keeps concurrent batches of the same sessions consistent', async () => {
    const batches = Array.from({ length: 8 }, (_, b) =>
      Array.from({ length: 50 }, (_, i) => [
        start(`c${i}`, '2026-03-20T10:00:00Z'),
        view(`c${i}`, `2026-03-20T10:0${b}:00Z`, b % 2 ? 'details' : 'start', { timeOnPageMs: 1000 }),
      ]).flat(),
    );
    const replies = await Promise.all(batches.map((events) => send(events)));
    expect(replies.map((r) => r.status)).toEqual(new Array(8).fill(202));
    expect(replies.reduce((sum, r) => sum + r.body.data.accepted, 0)).toBe(50 + 8 * 50);
    const q = 'from=2026-03-20&to=2026-03-20';
    expect(await kpi('kpi_total_sessions', acme.funnelId, q)).toEqual({
      type: 'kpiTotalSessions',
      value: 50,
    });
    const pages = await api().get(
      `/v1/funnels/${acme.funnelId}/metrics/charts/chart_page_to_page_conversion_rate?${q}`,
    );
    expect(pages.body.data.map((p: { value: number }) => p.value)).toEqual([50, 50, 0]);
  });

  it("stores a batch's events while another transaction has the funnel's turn, and counts them after it", async () => {
    const holder = new Client({ connectionString: t.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [acme.funnelId]);
      const reply = send([start('h1', '2026-03-23T10:00:00Z'), view('h1', '2026-03-23T10:00:01Z')]);
      // The batch waits for the turn with its events already written to the month's partition.
      let waiting: { pid: number; wrote: boolean }[] = [];
      for (const deadline = Date.now() + 60_000; !waiting.length && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 50));
        // Another connection: a transaction sees the activity of others as of its first look.
        waiting = await db.query(
          `SELECT a.pid, EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.granted AND l.mode = 'RowExclusiveLock'
                                   AND l.relation = to_regclass('metric_events_p2026_03')) AS wrote
             FROM pg_stat_activity a WHERE a.wait_event = 'advisory' AND a.query LIKE '%pg_advisory_xact_lock%'`,
        );
      }
      expect(waiting).toEqual([{ pid: expect.any(Number), wrote: true }]);
      await holder.query('COMMIT');
      expect((await reply).status).toBe(202);
      expect(await kpi('kpi_total_sessions', acme.funnelId, 'from=2026-03-23&to=2026-03-23')).toEqual({
        type: 'kpiTotalSessions',
        value: 1,
      });
    } finally {
      await holder.end();
    }
  });

  it("answers 404 to a batch for another company's funnel sent among the owner's batches, which are stored", async () => {
    const before = await storedEvents();
    const batch = (n: number) => [
      start(`g${n}`, '2026-03-21T10:00:00Z'),
      view(`g${n}`, '2026-03-21T10:00:01Z'),
    ];
    const replies = await Promise.all([
      send(batch(1)),
      send(batch(2)),
      send(batch(3), acme.funnelId, globex.key),
      send(batch(4)),
    ]);
    expect(replies.map((r) => r.status)).toEqual([202, 202, 404, 202]);
    expect(replies[2].body).toEqual({ error: 'Funnel not found', status: 404 });
    expect(await storedEvents()).toBe(before + 6);
  });

  it('stores the other batches written together with one that fails, and fails only that one', async () => {
    const events = t.app.get(EventsService);
    const at = Date.parse('2026-03-22T10:00:00Z');
    const good = (n: number) => [
      trackedEvent('session_start', `w${n}`, at, { visitorId: 'v', device: 'mobile' }),
      trackedEvent('page_view', `w${n}`, at + 1000, { pageSlug: 'start' }),
    ];
    // Validation keeps NUL out of requests; written directly, it makes PostgreSQL refuse the batch.
    const broken = [trackedEvent('page_view', 'w\u0000', at, { pageSlug: 'start' })];
    await events.record(acme.funnelId, good(0));
    const before = await storedEvents();
    // A funnel has two writers: they take the first two batches alone, and the next three wait
    // for them and are tried as one group. The third batch repeats an event stored before.
    const results = await Promise.allSettled([
      events.record(acme.funnelId, good(1)),
      events.record(acme.funnelId, good(2)),
      events.record(acme.funnelId, [...good(3), good(0)[0]]),
      events.record(acme.funnelId, broken),
      events.record(acme.funnelId, good(4)),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.accepted : null))).toEqual([
      2,
      2,
      2,
      null,
      2,
    ]);
    expect(await storedEvents()).toBe(before + 8);
    expect(await kpi('kpi_total_sessions', acme.funnelId, 'from=2026-03-22&to=2026-03-22')).toEqual({
      type: 'kpiTotalSessions',
      value: 5,
    });
  });
});
