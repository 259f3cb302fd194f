import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { Sql, StepKeyNumbers } from '@app/metrics';
import { createRandom } from '../apps/admin/src/demo/demo-data';
import { FILL_STEP_SUMMARIES } from '../db/migrations/1796400000000-SessionSteps';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { RawFilter, rawStepFunnel } from './support/raw-step-funnel';

const T0 = Date.parse('2026-03-10T12:00:00Z');
const SPAN = 2 * 3_600_000;
const PAGES = ['a', 'b', 'c'];

/**
 * Random sessions whose steps repeat and come in any order: pages, clicks, answers and outcomes
 * before and after the start, a start moved earlier by a later-sent session_start, sessions
 * never started, events exactly 60 s and 60.001 s after the start, and repeated events.
 */
function traffic(seed: number, sessions: number): Record<string, unknown>[] {
  const random = createRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const at = (ms: number) => new Date(ms).toISOString();
  const events: Record<string, unknown>[] = [];
  for (let n = 0; n < sessions; n++) {
    const sessionId = `s-${n}`;
    const start = T0 + Math.floor(random() * SPAN);
    const later = (from: number, to: number) => at(start + from + Math.floor(random() * (to - from)));
    if (random() < 0.9)
      events.push({
        type: 'session_start',
        sessionId,
        occurredAt: at(start),
        visitorId: `v-${n}`,
        device: pick(['mobile', 'desktop', 'tablet']),
        ...(random() < 0.7 ? { utm: { source: pick(['google', 'facebook', 'newsletter']) } } : {}),
        ...(random() < 0.5 ? { abVariant: pick(['original', 'variant']) } : {}),
      });
    // An earlier start, sent in any batch, moves the session (and what counts after it) earlier.
    if (random() < 0.15)
      events.push({
        type: 'session_start',
        sessionId,
        occurredAt: at(start - 20_000),
        visitorId: `v-${n}`,
        device: 'mobile',
      });
    for (let k = Math.floor(random() * 7); k > 0; k--)
      events.push({
        type: 'page_view',
        sessionId,
        occurredAt: later(-25_000, 120_000),
        pageSlug: pick(PAGES),
      });
    for (let k = Math.floor(random() * 3); k > 0; k--)
      events.push({
        type: 'button_click',
        sessionId,
        occurredAt: later(-5_000, 90_000),
        pageSlug: 'a',
        buttonId: pick(['x', 'y']),
      });
    for (let k = Math.floor(random() * 3); k > 0; k--)
      events.push({
        type: 'answer',
        sessionId,
        occurredAt: later(0, 90_000),
        questionId: pick(['question_1', 'question_2']),
        questionTitle: 'Q',
        answers: [pick(['A', 'B'])],
      });
    for (let k = Math.floor(random() * 3); k > 0; k--)
      events.push({ type: 'conversion', sessionId, occurredAt: later(-2_000, 100_000) });
    if (random() < 0.3) events.push({ type: 'completion', sessionId, occurredAt: later(0, 110_000) });
    // The edge of within=PT60S: at 60 s it counts, at 60.001 s it does not.
    if (random() < 0.3)
      events.push({ type: 'page_view', sessionId, occurredAt: at(start + 60_000), pageSlug: pick(PAGES) });
    if (random() < 0.2)
      events.push({
        type: 'conversion',
        sessionId,
        occurredAt: at(start + 60_000 + (random() < 0.5 ? 1 : 0)),
      });
  }
  // Any order of arrival, some events sent twice.
  for (let i = events.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [events[i], events[j]] = [events[j], events[i]];
  }
  return [...events, ...events.filter(() => random() < 0.05)];
}

const STEP_LISTS = [
  ['page:a', 'page:b', 'conversion'],
  ['page:b', 'page:a'],
  ['page:a', 'page:a', 'page:a'],
  ['click:x', 'answer:question_1', 'page:c', 'completion'],
  ['conversion', 'conversion'],
  ['page:a', 'page:nowhere'],
  [
    'page:c',
    'click:y',
    'page:b',
    'page:a',
    'answer:question_2',
    'page:c',
    'conversion',
    'page:a',
    'page:b',
    'completion',
  ],
];
const WITHINS: [string | undefined, number | undefined][] = [
  [undefined, undefined],
  ['PT60S', 60_000],
  ['PT59.999S', 59_999],
  ['PT45S', 45_000],
];
const FILTERS: [string, RawFilter][] = [
  ['', {}],
  ['&device=mobile', { device: ['mobile'] }],
  ['&utmSource=google&utmSource=facebook', { utm_source: ['google', 'facebook'] }],
  ['&abVariant=variant&device=desktop', { ab_variant: ['variant'], device: ['desktop'] }],
];
// The whole day, and a window to the millisecond inside the traffic.
const WINDOWS: [string, string, string][] = [
  ['from=2026-03-10&to=2026-03-10', '2026-03-10T00:00:00.000Z', '2026-03-10T23:59:59.999Z'],
  [
    'from=2026-03-10T12:31:07.250Z&to=2026-03-10T13:20:00.001Z',
    '2026-03-10T12:31:07.250Z',
    '2026-03-10T13:20:00.001Z',
  ],
];

describe('step funnels from the step summaries', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10000' });
    acme = await createTenant(t.app);
    globex = await createTenant(t.app);
    db = t.app.get(DataSource);
    // The same session ids in both funnels, different traffic.
    for (const [tenant, seed] of [
      [acme, 41],
      [globex, 42],
    ] as const) {
      const events = traffic(seed, 300);
      const random = createRandom(seed + 100);
      for (let i = 0; i < events.length;) {
        const size = 1 + Math.floor(random() * 300);
        const res = await httpClient(t.baseUrl, tenant.key).post(`/v1/funnels/${tenant.funnelId}/events`, {
          events: events.slice(i, i + size),
        });
        expect(res.status).toBe(202);
        i += size;
      }
    }
  }, 120_000);
  afterAll(() => t.close());

  const funnel = async (tenant: TenantFixture, query: string) => {
    const res = await httpClient(t.baseUrl, tenant.key).get(
      `/v1/funnels/${tenant.funnelId}/metrics/funnel?${query}`,
    );
    expect(res.status).toBe(200);
    return res.body.data;
  };

  it.each(WINDOWS)(
    'answers as the raw events do over %s, for every steps, within and filter',
    async (query, from, to) => {
      const period = Date.parse(to) + 1 - Date.parse(from);
      let reachedLast = 0;
      for (const steps of STEP_LISTS)
        for (const [within, withinMs] of WITHINS)
          for (const [filterQuery, filter] of FILTERS) {
            const asked = `${query}&steps=${steps.join(',')}${within ? `&within=${within}` : ''}${filterQuery}`;
            const expected = await rawStepFunnel(
              db,
              acme.funnelId,
              from,
              to,
              steps,
              withinMs ?? period,
              filter,
            );
            expect({ asked, data: await funnel(acme, asked) }).toEqual({ asked, data: expected });
            reachedLast += expected[expected.length - 1].value;
          }
      // The traffic reaches the steps: the comparison is not one of zeros.
      expect(reachedLast).toBeGreaterThan(50);
    },
    120_000,
  );

  it('counts each funnel’s own sessions only', async () => {
    const steps = ['page:a', 'page:b', 'conversion'];
    const [query, from, to] = WINDOWS[0];
    const own = await funnel(globex, `${query}&steps=${steps.join(',')}`);
    expect(own).toEqual(await rawStepFunnel(db, globex.funnelId, from, to, steps, 86_400_000));
    expect(own).not.toEqual(await funnel(acme, `${query}&steps=${steps.join(',')}`));
    const [{ count }]: { count: string }[] = await db.query(
      `SELECT count(*) FROM metric_session_steps WHERE funnel_id = $1`,
      [globex.funnelId],
    );
    expect(Number(count)).toBeGreaterThan(250);
  });

  it('answers 0 for a step key numbered beyond what marks hold, and keeps ingesting', async () => {
    await db.query(`INSERT INTO metric_step_keys (funnel_id, key, id) VALUES ($1, 'click:far', 2097152)`, [
      globex.funnelId,
    ]);
    const sent = await httpClient(t.baseUrl, globex.key).post(`/v1/funnels/${globex.funnelId}/events`, {
      events: [
        {
          type: 'button_click',
          sessionId: 's-1',
          occurredAt: '2026-03-10T13:00:00Z',
          pageSlug: 'a',
          buttonId: 'far',
        },
        {
          type: 'button_click',
          sessionId: 's-1',
          occurredAt: '2026-03-10T13:00:01Z',
          pageSlug: 'a',
          buttonId: 'further',
        },
      ],
    });
    expect(sent.status).toBe(202);
    const [query] = WINDOWS[0];
    for (const step of ['click:far', 'click:further'])
      expect((await funnel(globex, `${query}&steps=page:a,${step}`))[1]).toMatchObject({ step, value: 0 });
  });

  it('numbers a key again after the transaction that numbered it rolled back, and keeps only committed numbers', async () => {
    const tenant = await createTenant(t.app);
    const client = new Client({ connectionString: t.databaseUrl });
    await client.connect();
    const statements: string[] = [];
    const sql: Sql = async <R>(name: string, text: string, values: unknown[]) => {
      statements.push(name);
      return (await client.query({ name, text, values })).rows as R[];
    };
    const numbers = new StepKeyNumbers();
    const of = async (...keys: string[]) =>
      Object.fromEntries(await numbers.of(sql, tenant.funnelId, new Set(keys)));
    try {
      await client.query('BEGIN');
      expect(await of('page:a')).toEqual({ 'page:a': 1 });
      await client.query('ROLLBACK');
      // page:a's number 1 was never committed: page:b takes it, and page:a is numbered anew.
      await client.query('BEGIN');
      expect(await of('page:b')).toEqual({ 'page:b': 1 });
      expect(await of('page:a', 'page:b')).toEqual({ 'page:a': 2, 'page:b': 1 });
      await client.query('COMMIT');
      expect(statements).toHaveLength(3);
      // Read back once committed, then known without a statement.
      expect(await of('page:a', 'page:b')).toEqual({ 'page:a': 2, 'page:b': 1 });
      expect(await of('page:b', 'page:a')).toEqual({ 'page:a': 2, 'page:b': 1 });
      expect(statements).toHaveLength(4);
      const stored = await db.query(`SELECT key, id FROM metric_step_keys WHERE funnel_id = $1 ORDER BY id`, [
        tenant.funnelId,
      ]);
      expect(stored).toEqual([
        { key: 'page:b', id: 1 },
        { key: 'page:a', id: 2 },
      ]);
    } finally {
      await client.end();
    }
  });

  describe('over more sessions than a read takes whole', () => {
    let sampling: TestApp;
    // 300 sessions sent, about 270 of them started: estimated well above 40 in the whole day.
    beforeAll(async () => {
      sampling = await startTestApp(
        { RATE_LIMIT_PER_MINUTE: '10000', STEP_FUNNEL_SAMPLE_SESSIONS: '40' },
        t.databaseUrl,
      );
    });
    afterAll(() => sampling.close());

    type Meta = { exact: boolean; sampleRate: number; sessions: number; sampledSessions: number };
    const ask = async (query: string) => {
      const res = await httpClient(sampling.baseUrl, acme.key).get(
        `/v1/funnels/${acme.funnelId}/metrics/funnel?${query}`,
      );
      expect(res.status).toBe(200);
      return res.body as { data: Awaited<ReturnType<typeof rawStepFunnel>>; meta: Meta };
    };
    // A session's bucket as docs/METRICS.md defines it: its start second since 2000, hashed.
    const BUCKET = `(hashint8(floor(extract(epoch FROM m.started_at - timestamptz '2000-01-01Z'))::bigint) & 1023)`;
    /** The started sessions of the window matching the filter, by bucket: the exact count and a count per bucket. */
    const started = async (from: string, to: string, filter: RawFilter) => {
      const where = Object.entries(filter)
        .map(([column, values]) => ` AND m.${column} = ANY('{${values.join(',')}}'::text[])`)
        .join('');
      const rows: { bucket: number; n: string }[] = await db.query(
        `SELECT ${BUCKET} AS bucket, count(*) AS n FROM metric_sessions m
         WHERE m.funnel_id = $1 AND m.started_at >= $2 AND m.started_at <= $3${where} GROUP BY 1 ORDER BY 1`,
        [acme.funnelId, from, to],
      );
      return rows.map((r) => ({ bucket: Number(r.bucket), n: Number(r.n) }));
    };
    /** The number of first buckets whose sessions add up to `read` (any such number: the same sessions). */
    const bucketsHolding = (byBucket: { bucket: number; n: number }[], read: number) => {
      let sum = 0;
      for (const { bucket, n } of byBucket) {
        if (sum === read) return bucket;
        sum += n;
      }
      return sum === read ? 1024 : undefined;
    };

    it('answers from the sessions of the first buckets, scaled to the period’s sessions, and says so', async () => {
      let sampled = 0;
      for (const [query, from, to] of WINDOWS)
        for (const steps of STEP_LISTS.slice(0, 4))
          for (const [filterQuery, filter] of FILTERS.slice(0, 2)) {
            const asked = `${query}&steps=${steps.join(',')}&within=PT60S${filterQuery}`;
            const { data, meta } = await ask(asked);
            const byBucket = await started(from, to, filter);
            const sessions = byBucket.reduce((sum, b) => sum + b.n, 0);
            expect({ asked, sessions: meta.sessions }).toEqual({ asked, sessions });
            const buckets = bucketsHolding(byBucket, meta.sampledSessions);
            expect({ asked, buckets: buckets !== undefined && buckets >= 8 }).toEqual({
              asked,
              buckets: true,
            });
            const sample = await rawStepFunnel(db, acme.funnelId, from, to, steps, 60_000, filter, buckets);
            // Exact reads are the sample of every bucket: the same formulas hold, with a scale of 1.
            expect({ asked, meta, data }).toEqual({
              asked,
              meta: {
                exact: meta.sampledSessions === sessions,
                sampleRate: Math.round((meta.sampledSessions / sessions) * 10_000) / 10_000,
                sessions,
                sampledSessions: meta.sampledSessions,
              },
              data: sample.map((p) => ({
                ...p,
                value: Math.round((p.value * sessions) / meta.sampledSessions),
              })),
            });
            if (!meta.exact) sampled++;
          }
      // The whole day holds about 270 started sessions: sampled at least without a filter.
      expect(sampled).toBeGreaterThanOrEqual(4);
    }, 60_000);

    it('reads a sample of about the configured size, and every session with exact=true', async () => {
      const [query, from, to] = WINDOWS[0];
      const steps = ['page:a', 'page:b', 'conversion'];
      const { data, meta } = await ask(`${query}&steps=${steps.join(',')}`);
      expect(meta.exact).toBe(false);
      // The share is chosen from an estimate (1 bucket in 128), so the sample is about 40, not exactly.
      expect(meta.sampledSessions).toBeGreaterThanOrEqual(10);
      expect(meta.sampledSessions).toBeLessThanOrEqual(160);
      expect(data[0].value).toBeGreaterThan(0);
      const exact = await ask(`${query}&steps=${steps.join(',')}&exact=true`);
      expect(exact).toEqual({
        data: await rawStepFunnel(db, acme.funnelId, from, to, steps, 86_400_000),
        meta: { exact: true, sampleRate: 1, sessions: meta.sessions, sampledSessions: meta.sessions },
      });
    });
  });

  it('answers the same from the summaries the migration fills from stored events', async () => {
    const [query, from, to] = WINDOWS[1];
    const asked = STEP_LISTS.map((steps) => `${query}&steps=${steps.join(',')}&within=PT60S&device=mobile`);
    const before = await Promise.all(asked.map((q) => funnel(acme, q)));
    await db.query('TRUNCATE metric_session_steps, metric_step_keys');
    for (const sql of FILL_STEP_SUMMARIES) await db.query(sql);
    expect(await Promise.all(asked.map((q) => funnel(acme, q)))).toEqual(before);
    for (const steps of STEP_LISTS.slice(0, 3))
      expect(await funnel(acme, `${query}&steps=${steps.join(',')}`)).toEqual(
        await rawStepFunnel(db, acme.funnelId, from, to, steps, Date.parse(to) + 1 - Date.parse(from)),
      );
  });
});
