import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { seedMetricsFixture } from './support/metrics-fixture';

// See test/support/metrics-fixture.ts. Page views "start" / "details", clicks, answers and outcomes
// after each session's start: S1 21:30:10 / 21:31:00, cta-next 21:30:12, answer 21:31:30,
// conversion 21:40 (10 min after its start), completion 21:45; S2 22:10:05 / 22:11:00, cta-next
// 22:10:07, answer 22:12, conversion 22:20 (10 min); S3 start page 03:00:30, completion 03:30;
// S4 (mobile, like S1) 05:20:40 / 05:21:00, cta-next 05:20:45.
const TWO_DAYS = 'from=2026-01-31&to=2026-02-01';

describe('GET /v1/funnels/{funnelId}/metrics/funnel', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10000' });
    acme = await createTenant(t.app);
    globex = await createTenant(t.app);
    await seedMetricsFixture(t, acme, globex);
  });
  afterAll(() => t.close());

  const funnel = (query: string, key = acme.key, funnelId = acme.funnelId) =>
    httpClient(t.baseUrl, key).get(`/v1/funnels/${funnelId}/metrics/funnel?${query}`);
  const data = async (query: string) => {
    const res = await funnel(query);
    expect(res.status).toBe(200);
    return res.body.data;
  };

  it('counts the sessions that reached each step in order, with the median time between steps', async () => {
    const res = await funnel(`${TWO_DAYS}&steps=page:start,page:details,conversion`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { step: 'page:start', value: 4, relativeValue: 1 },
        { step: 'page:details', value: 3, relativeValue: 0.75, medianSecondsFromPrevious: 50 },
        { step: 'conversion', value: 2, relativeValue: 0.6667, medianSecondsFromPrevious: 540 },
      ],
      // A period of few sessions is counted whole.
      meta: { exact: true, sampleRate: 1, sessions: 4, sampledSessions: 4 },
    });
    const exact = await funnel(`${TWO_DAYS}&steps=page:start,page:details,conversion&exact=true`);
    expect(exact.body).toEqual(res.body);
  });

  it('keeps only steps reached within the duration after the start', async () => {
    expect(await data(`${TWO_DAYS}&steps=page:start,page:details,conversion&within=PT10M`)).toEqual([
      { step: 'page:start', value: 4, relativeValue: 1 },
      { step: 'page:details', value: 3, relativeValue: 0.75, medianSecondsFromPrevious: 50 },
      { step: 'conversion', value: 2, relativeValue: 0.6667, medianSecondsFromPrevious: 540 },
    ]);
    expect(await data(`${TWO_DAYS}&steps=page:start,page:details,conversion&within=PT9M59S`)).toEqual([
      { step: 'page:start', value: 4, relativeValue: 1 },
      { step: 'page:details', value: 3, relativeValue: 0.75, medianSecondsFromPrevious: 50 },
      { step: 'conversion', value: 0, relativeValue: 0, medianSecondsFromPrevious: 0 },
    ]);
  });

  it('requires the order given', async () => {
    expect(await data(`${TWO_DAYS}&steps=page:details,page:start`)).toEqual([
      { step: 'page:details', value: 3, relativeValue: 1 },
      { step: 'page:start', value: 0, relativeValue: 0, medianSecondsFromPrevious: 0 },
    ]);
  });

  it('reaches clicks, answers and completions', async () => {
    expect(await data(`${TWO_DAYS}&steps=click:cta-next,answer:question_1`)).toEqual([
      { step: 'click:cta-next', value: 3, relativeValue: 1 },
      { step: 'answer:question_1', value: 2, relativeValue: 0.6667, medianSecondsFromPrevious: 95.5 },
    ]);
    expect(await data(`${TWO_DAYS}&steps=page:start,completion`)).toEqual([
      { step: 'page:start', value: 4, relativeValue: 1 },
      { step: 'completion', value: 2, relativeValue: 0.5, medianSecondsFromPrevious: 1330 },
    ]);
  });

  it('applies the filters', async () => {
    expect(await data(`${TWO_DAYS}&steps=page:start,page:details&device=mobile`)).toEqual([
      { step: 'page:start', value: 2, relativeValue: 1 },
      { step: 'page:details', value: 2, relativeValue: 1, medianSecondsFromPrevious: 35 },
    ]);
    expect(await data(`${TWO_DAYS}&steps=page:start,page:details&utmSource=none`)).toEqual([
      { step: 'page:start', value: 0, relativeValue: 1 },
      { step: 'page:details', value: 0, relativeValue: 0, medianSecondsFromPrevious: 0 },
    ]);
  });

  it.each([
    ['', 'steps is required'],
    ['&steps=page:start', 'steps must list 2 to 10 steps'],
    [`&steps=${Array(11).fill('conversion').join(',')}`, 'steps must list 2 to 10 steps'],
    ['&steps=page:start,visit:x', 'steps must list 2 to 10 steps'],
    ['&steps=page:,conversion', 'steps must list 2 to 10 steps'],
    ['&steps=answer:q1,conversion', 'steps must list 2 to 10 steps'],
    ['&steps=conversion:x,completion', 'steps must list 2 to 10 steps'],
    ['&steps=page:start,conversion&within=P1M', 'within must be an ISO 8601 duration'],
    ['&steps=page:start,conversion&within=PT0S', 'within must be an ISO 8601 duration'],
    ['&steps=page:start,conversion&within=7d', 'within must be an ISO 8601 duration'],
    ['&steps=page:start,conversion&within=PT', 'within must be an ISO 8601 duration'],
    ['&steps=page:start,conversion&breakdown=device', 'breakdown is not a recognised field'],
    ['&steps=page:start,conversion&exact=yes', 'exact must be true or false'],
    ['&steps=page:start,conversion&exact=true&exact=false', 'exact must be true or false'],
  ])('answers 400 for %s', async (params, message) => {
    const res = await funnel(`${TWO_DAYS}${params}`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(message);
  });

  it('answers 400 for an invalid period, 404 for another company’s funnel, 403 without metrics:read', async () => {
    expect((await funnel('from=2026-02-02&to=2026-02-01&steps=page:start,conversion')).status).toBe(400);
    const foreign = await funnel(`${TWO_DAYS}&steps=page:start,conversion`, globex.key);
    expect(foreign.status).toBe(404);
    const crmOnly = await funnel(`${TWO_DAYS}&steps=page:start,conversion`, await acme.keyFor('crm:read'));
    expect(crmOnly.status).toBe(403);
    expect((await funnel(`${TWO_DAYS}&steps=page:start,conversion`, acme.key, 'not-a-uuid')).status).toBe(
      400,
    );
  });
});
