import { insertContacts } from './support/contacts';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

jest.setTimeout(60_000);

/**
 * Sessions placed around the 2026 clock changes, each a session_start with a page view ten
 * seconds later (same local hour). The figures below are worked out by hand from these instants:
 *
 * Europe/Berlin, CET = UTC+1, CEST = UTC+2; clocks change at 01:00 UTC.
 *   Spring, Sunday 2026-03-29: 02:00 CET → 03:00 CEST. The local day is 2026-03-28T23:00Z to
 *   2026-03-29T22:00Z, 23 hours.
 *     BS1 03-28T22:59:30Z = Sat 23:59 (day before)   BS2 03-28T23:00:30Z = Sun 00:00
 *     BS3 03-29T00:59:30Z = Sun 01:59                 BS4 03-29T01:00:30Z = Sun 03:00
 *     BS5 03-29T21:59:30Z = Sun 23:59                 BS6 03-29T22:00:30Z = Mon 00:00 (day after)
 *   Autumn, Sunday 2026-10-25: 03:00 CEST → 02:00 CET. The local day is 2026-10-24T22:00Z to
 *   2026-10-25T23:00Z, 25 hours; 02:xx happens twice.
 *     BA1 10-24T21:59:30Z = Sat 23:59   BA2 10-24T22:00:30Z = Sun 00:00
 *     BA3 10-25T00:30:00Z = Sun 02:30 CEST   BA4 10-25T01:30:00Z = Sun 02:30 CET
 *     BA5 10-25T22:59:30Z = Sun 23:59   BA6 10-25T23:00:30Z = Mon 00:00
 *
 * America/New_York, EST = UTC−5, EDT = UTC−4; clocks change at 02:00 local.
 *   Spring, Sunday 2026-03-08 (07:00Z): 02:00 EST → 03:00 EDT. Local day 03-08T05:00Z to
 *   03-09T04:00Z, 23 hours.
 *     NS1 03-08T04:59:30Z = Sat 23:59   NS2 03-08T05:00:30Z = Sun 00:00
 *     NS3 03-08T06:59:30Z = Sun 01:59   NS4 03-08T07:00:30Z = Sun 03:00
 *     NS5 03-09T03:59:30Z = Sun 23:59   NS6 03-09T04:00:30Z = Mon 00:00
 *   Autumn, Sunday 2026-11-01 (06:00Z): 02:00 EDT → 01:00 EST. Local day 11-01T04:00Z to
 *   11-02T05:00Z, 25 hours; 01:xx happens twice.
 *     NA1 11-01T03:59:30Z = Sat 23:59   NA2 11-01T04:00:30Z = Sun 00:00
 *     NA3 11-01T05:30:00Z = Sun 01:30 EDT   NA4 11-01T06:30:00Z = Sun 01:30 EST
 *     NA5 11-02T04:59:30Z = Sun 23:59   NA6 11-02T05:00:30Z = Mon 00:00
 */
const SESSIONS: Record<string, string> = {
  BS1: '2026-03-28T22:59:30Z',
  BS2: '2026-03-28T23:00:30Z',
  BS3: '2026-03-29T00:59:30Z',
  BS4: '2026-03-29T01:00:30Z',
  BS5: '2026-03-29T21:59:30Z',
  BS6: '2026-03-29T22:00:30Z',
  BA1: '2026-10-24T21:59:30Z',
  BA2: '2026-10-24T22:00:30Z',
  BA3: '2026-10-25T00:30:00Z',
  BA4: '2026-10-25T01:30:00Z',
  BA5: '2026-10-25T22:59:30Z',
  BA6: '2026-10-25T23:00:30Z',
  NS1: '2026-03-08T04:59:30Z',
  NS2: '2026-03-08T05:00:30Z',
  NS3: '2026-03-08T06:59:30Z',
  NS4: '2026-03-08T07:00:30Z',
  NS5: '2026-03-09T03:59:30Z',
  NS6: '2026-03-09T04:00:30Z',
  NA1: '2026-11-01T03:59:30Z',
  NA2: '2026-11-01T04:00:30Z',
  NA3: '2026-11-01T05:30:00Z',
  NA4: '2026-11-01T06:30:00Z',
  NA5: '2026-11-02T04:59:30Z',
  NA6: '2026-11-02T05:00:30Z',
};

/**
 * Contacts converted around the spring change in Berlin and the autumn change in New York:
 *   03-28T22:30Z = Berlin 03-28 23:30 CET     03-28T23:30Z = 03-29 00:30 CET
 *   03-29T21:30Z = 03-29 23:30 CEST            03-29T22:30Z = 03-30 00:30 CEST
 *   11-01T03:30Z = New York 10-31 23:30 EDT    11-01T04:30Z = 11-01 00:30 EDT
 *   11-02T04:30Z = 11-01 23:30 EST             11-02T05:30Z = 11-02 00:30 EST
 */
const CONVERTED = [
  '2026-03-28T22:30:00Z',
  '2026-03-28T23:30:00Z',
  '2026-03-29T21:30:00Z',
  '2026-03-29T22:30:00Z',
  '2026-11-01T03:30:00Z',
  '2026-11-01T04:30:00Z',
  '2026-11-02T04:30:00Z',
  '2026-11-02T05:30:00Z',
];

const BERLIN = 'timezone=Europe/Berlin';
const NEW_YORK = 'timezone=America/New_York';

/** The non-zero slots of an activity chart. */
const busySlots = (points: { key: string; value: number }[]) =>
  Object.fromEntries(points.filter((p) => p.value).map((p) => [p.key, p.value]));

describe('Metrics in a named time zone (daylight saving changes)', () => {
  let t: TestApp;
  let acme: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTenant(t.app);
    const events = Object.entries(SESSIONS).flatMap(([sessionId, at]) => [
      { type: 'session_start', sessionId, occurredAt: at, visitorId: sessionId, device: 'mobile' },
      {
        type: 'page_view',
        sessionId,
        occurredAt: new Date(Date.parse(at) + 10_000).toISOString(),
        pageSlug: 'start',
      },
    ]);
    const res = await httpClient(t.baseUrl, acme.key).post(`/v1/funnels/${acme.funnelId}/events`, {
      events,
    });
    expect(res.status).toBe(202);
    await insertContacts(
      t.app,
      acme,
      CONVERTED.map((at, i) => ({ email: `c${i}@example.com`, convertedAt: new Date(at) })),
    );
  });
  afterAll(() => t?.close());

  const get = async (path: string) => {
    const res = await httpClient(t.baseUrl, acme.key).get(`/v1/funnels/${acme.funnelId}/metrics/${path}`);
    expect([path, res.status]).toEqual([path, 200]);
    return res.body.data;
  };
  const sessions = async (query: string) => (await get(`kpis/kpi_total_sessions?${query}`)).value;
  const activity = async (query: string) => busySlots(await get(`charts/chart_activity_by_daytime?${query}`));

  it.each([
    ['Berlin spring-forward day (23 hours)', `from=2026-03-29&to=2026-03-29&${BERLIN}`],
    ['Berlin fall-back day (25 hours)', `from=2026-10-25&to=2026-10-25&${BERLIN}`],
    ['New York spring-forward day (23 hours)', `from=2026-03-08&to=2026-03-08&${NEW_YORK}`],
    ['New York fall-back day (25 hours)', `from=2026-11-01&to=2026-11-01&${NEW_YORK}`],
  ])('counts the sessions of the %s from its first to its last local minute', async (_name, query) => {
    // Sessions 2 to 5 of each day: the first is the day before, the sixth the day after.
    expect(await sessions(query)).toBe(4);
  });

  it('differs from a fixed offset, which misses the change', async () => {
    // UTC+1 all day: 03-28T23:00Z to 03-29T23:00Z takes in BS6 as well.
    expect(await sessions('from=2026-03-29&to=2026-03-29&offset=-60')).toBe(5);
    // UTC−4 all day: 11-01T04:00Z to 11-02T04:00Z leaves out NA5.
    expect(await sessions('from=2026-11-01&to=2026-11-01&offset=240')).toBe(3);
  });

  it('puts page views in their local hours: no 02:00 on the spring day, two on the autumn day', async () => {
    expect(await activity(`from=2026-03-29&to=2026-03-29&${BERLIN}`)).toEqual({
      '7-00': 1,
      '7-01': 1,
      '7-03': 1,
      '7-23': 1,
    });
    expect(await activity(`from=2026-10-25&to=2026-10-25&${BERLIN}`)).toEqual({
      '7-00': 1,
      '7-02': 2,
      '7-23': 1,
    });
    expect(await activity(`from=2026-03-08&to=2026-03-08&${NEW_YORK}`)).toEqual({
      '7-00': 1,
      '7-01': 1,
      '7-03': 1,
      '7-23': 1,
    });
    expect(await activity(`from=2026-11-01&to=2026-11-01&${NEW_YORK}`)).toEqual({
      '7-00': 1,
      '7-01': 2,
      '7-23': 1,
    });
  });

  it('follows several changes in one window', async () => {
    // Berlin, all of 2026: every session of both Berlin days plus the New York ones, each in its
    // Berlin hour. NS1..NS6 (UTC+1): Sun 05:59, 06:00, 07:59, 08:00, Mon 04:59, 05:00.
    // NA1..NA6 (UTC+1): Sun 04:59, 05:00, 06:30, 07:30, Mon 05:59, 06:00.
    expect(await activity(`from=2026-01-01&to=2026-12-31&${BERLIN}`)).toEqual({
      '6-23': 2,
      '7-00': 2,
      '7-01': 1,
      '7-02': 2,
      '7-03': 1,
      '7-23': 2,
      '1-00': 2,
      '7-04': 1,
      '7-05': 2,
      '7-06': 2,
      '7-07': 2,
      '7-08': 1,
      '1-04': 1,
      '1-05': 2,
      '1-06': 1,
    });
    expect(await sessions(`from=2026-01-01&to=2026-12-31&${BERLIN}`)).toBe(24);
  });

  it('counts converted contacts per local day across a change', async () => {
    expect(await get(`charts/chart_contacts_over_time?from=2026-03-28&to=2026-03-30&${BERLIN}`)).toEqual([
      { key: '2026-03-28', value: 1 },
      { key: '2026-03-29', value: 2 },
      { key: '2026-03-30', value: 1 },
    ]);
    expect(await get(`charts/chart_contacts_over_time?from=2026-10-31&to=2026-11-02&${NEW_YORK}`)).toEqual([
      { key: '2026-10-31', value: 1 },
      { key: '2026-11-01', value: 2 },
      { key: '2026-11-02', value: 1 },
    ]);
    expect((await get(`kpis/kpi_new_contacts?from=2026-11-01&to=2026-11-01&${NEW_YORK}`)).value).toBe(2);
  });

  it('reads a wall-clock time that happens twice as its first occurrence', async () => {
    // 02:00 to 02:59:59.999 on 2026-10-25 in Berlin is the CEST hour, 00:00Z to 01:00Z: BA3 only.
    expect(await sessions(`from=2026-10-25T02:00:00&to=2026-10-25T02:59:59.999&${BERLIN}`)).toBe(1);
  });

  it('refuses offset and timezone together, and an unknown zone, in the error shape', async () => {
    const api = httpClient(t.baseUrl, acme.key);
    const kpi = `/v1/funnels/${acme.funnelId}/metrics/kpis/kpi_total_sessions?from=2026-03-29&to=2026-03-29`;
    expect(await api.get(`${kpi}&offset=-60&${BERLIN}`)).toMatchObject({
      status: 400,
      body: {
        error: 'offset and timezone are alternatives: give one of them',
        status: 400,
        details: ['offset and timezone are alternatives: give one of them'],
      },
    });
    for (const zone of ['Europe/Atlantis', '%2B01:00', ''])
      expect(await api.get(`${kpi}&timezone=${zone}`)).toMatchObject({
        status: 400,
        body: { error: 'timezone must be an IANA time zone name (e.g. Europe/Berlin)', status: 400 },
      });
    const chart = `/v1/funnels/${acme.funnelId}/metrics/charts/chart_visitor_devices?from=2026-03-29&to=2026-03-29`;
    expect((await api.get(`${chart}&offset=0&timezone=UTC`)).status).toBe(400);
    const insight = `/v1/funnels/${acme.funnelId}/metrics/insights/question_1?from=2026-03-29&to=2026-03-29`;
    expect((await api.get(`${insight}&timezone=Nowhere/Land`)).status).toBe(400);
  });
});
