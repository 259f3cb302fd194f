import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { seedMetricsFixture } from './support/metrics-fixture';

// Windows over the fixture (see test/support/metrics-fixture.ts for the events):
const UTC_TWO_DAYS = 'from=2026-01-31&to=2026-02-01'; // S1..S4, offset 0
const SUNDAY_AT_UTC_PLUS_2 = 'from=2026-02-01&to=2026-02-01&offset=-120'; // 2026-01-31T22:00Z..2026-02-01T21:59:59.999Z: S2, S3, S4
const SATURDAY_AT_UTC_MINUS_5_30 = 'from=2026-01-31&to=2026-01-31&offset=%2B330'; // 2026-01-31T05:30Z..2026-02-01T05:29:59.999Z: S1..S4
const EMPTY = 'from=2025-06-01T00:00:00Z&to=2025-06-02T00:00:00Z';

/** 168 zeros except the given `D-HH` slots. */
const activity = (values: Record<string, number>) => {
  const names = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
  return names.flatMap((day, d) =>
    Array.from({ length: 24 }, (_, h) => {
      const hh = String(h).padStart(2, '0');
      const key = `${d + 1}-${hh}`;
      return { key, name: `${day} ${hh}:00`, value: values[key] ?? 0 };
    }),
  );
};

describe('GET /v1/funnels/{funnelId}/metrics/charts/{subtype}', () => {
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

  const chart = async (subtype: string, query: string, key = acme.key, funnelId = acme.funnelId) => {
    const res = await httpClient(t.baseUrl, key).get(
      `/v1/funnels/${funnelId}/metrics/charts/${subtype}?${query}`,
    );
    return res;
  };
  const data = async (subtype: string, query: string) => {
    const res = await chart(subtype, query);
    expect(res.status).toBe(200);
    return res.body.data;
  };

  describe('chart_page_to_page_conversion_rate', () => {
    it('counts sessions that viewed each page, relative to the previous page', async () => {
      expect(await data('chart_page_to_page_conversion_rate', UTC_TWO_DAYS)).toEqual([
        { key: 'start', name: 'Start', value: 4, relativeValue: 1 },
        { key: 'details', name: 'Details', value: 3, relativeValue: 0.75 },
        { key: 'done', name: 'Done', value: 1, relativeValue: 0.3333 },
      ]);
      expect(await data('chart_page_to_page_conversion_rate', SUNDAY_AT_UTC_PLUS_2)).toEqual([
        { key: 'start', name: 'Start', value: 3, relativeValue: 1 },
        { key: 'details', name: 'Details', value: 2, relativeValue: 0.6667 },
        { key: 'done', name: 'Done', value: 0, relativeValue: 0 },
      ]);
    });

    it('filters sessions by A/B variant', async () => {
      expect(await data('chart_page_to_page_conversion_rate', `${UTC_TWO_DAYS}&abTest=all`)).toEqual(
        await data('chart_page_to_page_conversion_rate', UTC_TWO_DAYS),
      );
      expect(await data('chart_page_to_page_conversion_rate', `${UTC_TWO_DAYS}&abTest=original`)).toEqual([
        { key: 'start', name: 'Start', value: 2, relativeValue: 1 },
        { key: 'details', name: 'Details', value: 2, relativeValue: 1 },
        { key: 'done', name: 'Done', value: 1, relativeValue: 0.5 },
      ]);
      expect(await data('chart_page_to_page_conversion_rate', `${UTC_TWO_DAYS}&abTest=variant`)).toEqual([
        { key: 'start', name: 'Start', value: 1, relativeValue: 1 },
        { key: 'details', name: 'Details', value: 1, relativeValue: 1 },
        { key: 'done', name: 'Done', value: 0, relativeValue: 0 },
      ]);
    });

    it('gives zeros (first page 1) for an empty period', async () => {
      expect(await data('chart_page_to_page_conversion_rate', EMPTY)).toEqual([
        { key: 'start', name: 'Start', value: 0, relativeValue: 1 },
        { key: 'details', name: 'Details', value: 0, relativeValue: 0 },
        { key: 'done', name: 'Done', value: 0, relativeValue: 0 },
      ]);
    });
  });

  describe('chart_activity_by_daytime', () => {
    it('counts page views per local weekday and hour', async () => {
      // S1 21:30-21:32 Sat (3), S2 22:10-22:11 Sat (2), S3 03:00 Sun, S4 05:20-05:21 Sun (2), S5 06:00 Sun.
      expect(await data('chart_activity_by_daytime', UTC_TWO_DAYS)).toEqual(
        activity({ '6-21': 3, '6-22': 2, '7-03': 1, '7-05': 2, '7-06': 1 }),
      );
      // UTC+2: S2 is Sunday 00:10, S3 05:00, S4 07:20, S5 08:00; S1 is outside the local day.
      expect(await data('chart_activity_by_daytime', SUNDAY_AT_UTC_PLUS_2)).toEqual(
        activity({ '7-00': 2, '7-05': 1, '7-07': 2, '7-08': 1 }),
      );
      // UTC−5:30: S1 and S2 are Saturday 16:00-16:40, S3 Saturday 21:30, S4 Saturday 23:50; S5 is after the window.
      expect(await data('chart_activity_by_daytime', SATURDAY_AT_UTC_MINUS_5_30)).toEqual(
        activity({ '6-16': 5, '6-21': 1, '6-23': 2 }),
      );
    });

    it('is exact for offsets that are not whole quarter hours', async () => {
      // offset 7: local = UTC − 7 min. S1's 21:30:10 is 21:23 local, S4's views 05:13/05:14, S5 05:53.
      expect(
        await data('chart_activity_by_daytime', 'from=2026-01-31T21:00:00Z&to=2026-02-01T21:00:00Z&offset=7'),
      ).toEqual(activity({ '6-21': 3, '6-22': 2, '7-02': 1, '7-05': 3 }));
    });

    it('answers 168 zero slots for an empty period', async () => {
      expect(await data('chart_activity_by_daytime', EMPTY)).toEqual(activity({}));
    });
  });

  describe('chart_contacts_over_time', () => {
    it('counts contacts per local day, every day present', async () => {
      expect(await data('chart_contacts_over_time', UTC_TWO_DAYS)).toEqual([
        { key: '2026-01-31', value: 2 },
        { key: '2026-02-01', value: 2 },
      ]);
      // UTC+2: C2 (22:20Z) is already Sunday; C3 (21:59:59.999Z) is the last millisecond of Sunday; C4 is Monday.
      expect(await data('chart_contacts_over_time', SUNDAY_AT_UTC_PLUS_2)).toEqual([
        { key: '2026-02-01', value: 2 },
      ]);
      expect(await data('chart_contacts_over_time', SATURDAY_AT_UTC_MINUS_5_30)).toEqual([
        { key: '2026-01-31', value: 2 },
      ]);
      expect(await data('chart_contacts_over_time', EMPTY)).toEqual([
        { key: '2025-06-01', value: 0 },
        { key: '2025-06-02', value: 0 },
      ]);
    });

    it('counts per local month when the period is longer than 93 days', async () => {
      expect(await data('chart_contacts_over_time', 'from=2025-12-01&to=2026-03-31')).toEqual([
        { key: '2025-12', value: 1 },
        { key: '2026-01', value: 2 },
        { key: '2026-02', value: 2 },
        { key: '2026-03', value: 0 },
      ]);
      // At UTC+2, C2 (2026-01-31T22:20Z) converted in February.
      expect(await data('chart_contacts_over_time', 'from=2025-12-01&to=2026-03-31&offset=-120')).toEqual([
        { key: '2025-12', value: 1 },
        { key: '2026-01', value: 1 },
        { key: '2026-02', value: 3 },
        { key: '2026-03', value: 0 },
      ]);
    });
  });

  describe('chart_visitor_devices', () => {
    it('counts sessions per device with their share', async () => {
      expect(await data('chart_visitor_devices', UTC_TWO_DAYS)).toEqual([
        { key: 'mobile', value: 2, relativeValue: 0.5 },
        { key: 'desktop', value: 1, relativeValue: 0.25 },
        { key: 'tablet', value: 1, relativeValue: 0.25 },
        { key: 'other', value: 0, relativeValue: 0 },
      ]);
      expect(await data('chart_visitor_devices', SUNDAY_AT_UTC_PLUS_2)).toEqual([
        { key: 'mobile', value: 1, relativeValue: 0.3333 },
        { key: 'desktop', value: 1, relativeValue: 0.3333 },
        { key: 'tablet', value: 1, relativeValue: 0.3333 },
        { key: 'other', value: 0, relativeValue: 0 },
      ]);
      expect(await data('chart_visitor_devices', EMPTY)).toEqual(
        ['mobile', 'desktop', 'tablet', 'other'].map((key) => ({ key, value: 0, relativeValue: 0 })),
      );
    });

    it('includes a session starting exactly at `from` and excludes it a millisecond later', async () => {
      expect(
        await data('chart_visitor_devices', 'from=2026-02-01T05:20:30.500Z&to=2026-02-01T05:21:05Z'),
      ).toEqual([
        { key: 'mobile', value: 1, relativeValue: 1 },
        { key: 'desktop', value: 0, relativeValue: 0 },
        { key: 'tablet', value: 0, relativeValue: 0 },
        { key: 'other', value: 0, relativeValue: 0 },
      ]);
      expect(
        (await data('chart_visitor_devices', 'from=2026-02-01T05:20:30.501Z&to=2026-02-01T05:21:05Z'))[0],
      ).toEqual({
        key: 'mobile',
        value: 0,
        relativeValue: 0,
      });
      expect(
        (await data('chart_visitor_devices', 'from=2026-02-01T05:00:00Z&to=2026-02-01T05:20:30.500Z'))[0]
          .value,
      ).toBe(1);
      expect(
        (await data('chart_visitor_devices', 'from=2026-02-01T05:00:00Z&to=2026-02-01T05:20:30.499Z'))[0]
          .value,
      ).toBe(0);
    });
  });

  describe('chart_top_utm_sources', () => {
    it('ranks sources by sessions, sharing among sessions with a source', async () => {
      expect(await data('chart_top_utm_sources', UTC_TWO_DAYS)).toEqual([
        { key: 'facebook', value: 2, relativeValue: 0.6667 },
        { key: 'google', value: 1, relativeValue: 0.3333 },
      ]);
      expect(await data('chart_top_utm_sources', SUNDAY_AT_UTC_PLUS_2)).toEqual([
        { key: 'facebook', value: 1, relativeValue: 0.5 },
        { key: 'google', value: 1, relativeValue: 0.5 },
      ]);
      expect(await data('chart_top_utm_sources', EMPTY)).toEqual([]);
    });

    it('keeps the top 10, ties by key', async () => {
      const march = await data('chart_top_utm_sources', 'from=2026-03-01&to=2026-03-31');
      expect(march).toEqual(
        ['newsletter', ...Array.from({ length: 9 }, (_, i) => `src-0${i + 1}`)].map((key) => ({
          key,
          value: 1,
          relativeValue: 0.0833,
        })),
      );
    });
  });

  describe('chart_time_on_page', () => {
    it('averages timeOnPageMs per funnel page in seconds', async () => {
      // start: 4000, 2000, 1000, 3000 and S5's 7000; details: 6000, 5000; done: none reported.
      expect(await data('chart_time_on_page', UTC_TWO_DAYS)).toEqual([
        { key: 'start', name: 'Start', value: 3.4 },
        { key: 'details', name: 'Details', value: 5.5 },
        { key: 'done', name: 'Done', value: 0 },
      ]);
      expect(await data('chart_time_on_page', SUNDAY_AT_UTC_PLUS_2)).toEqual([
        { key: 'start', name: 'Start', value: 3.25 },
        { key: 'details', name: 'Details', value: 5 },
        { key: 'done', name: 'Done', value: 0 },
      ]);
      expect(await data('chart_time_on_page', SATURDAY_AT_UTC_MINUS_5_30)).toEqual([
        { key: 'start', name: 'Start', value: 2.5 },
        { key: 'details', name: 'Details', value: 5.5 },
        { key: 'done', name: 'Done', value: 0 },
      ]);
    });

    it('reads sub-minute edges exactly', async () => {
      expect(
        await data('chart_time_on_page', 'from=2026-02-01T05:20:30.500Z&to=2026-02-01T05:21:05Z'),
      ).toEqual([
        { key: 'start', name: 'Start', value: 3 },
        { key: 'details', name: 'Details', value: 5 },
        { key: 'done', name: 'Done', value: 0 },
      ]);
      expect(await data('chart_time_on_page', EMPTY)).toEqual([
        { key: 'start', name: 'Start', value: 0 },
        { key: 'details', name: 'Details', value: 0 },
        { key: 'done', name: 'Done', value: 0 },
      ]);
    });
  });

  describe('chart_button_clicks', () => {
    it('counts clicks per button, named by the latest label in the period', async () => {
      expect(await data('chart_button_clicks', UTC_TWO_DAYS)).toEqual([
        { key: 'cta-next', name: 'Next', value: 4 },
        { key: 'cta-back', name: 'Back', value: 1 },
      ]);
      expect(await data('chart_button_clicks', SATURDAY_AT_UTC_MINUS_5_30)).toEqual([
        { key: 'cta-next', name: 'Next step', value: 3 },
        { key: 'cta-back', name: 'Back', value: 1 },
      ]);
      // Only S4's unlabelled click: the name falls back to the id.
      expect(
        await data('chart_button_clicks', 'from=2026-02-01T05:20:30.500Z&to=2026-02-01T05:21:05Z'),
      ).toEqual([{ key: 'cta-next', name: 'cta-next', value: 1 }]);
      expect(await data('chart_button_clicks', EMPTY)).toEqual([]);
    });
  });

  describe('errors', () => {
    it.each([
      ['chart_unknown', UTC_TWO_DAYS, 'Unknown chart subtype: chart_unknown'],
      ['chart_visitor_devices', 'to=2026-02-01', 'from is required'],
      ['chart_visitor_devices', 'from=2026-02-01', 'to is required'],
      [
        'chart_visitor_devices',
        'from=yesterday&to=2026-02-01',
        'from must be an ISO 8601 date or date-time (e.g. 2025-01-01T00:00:00Z)',
      ],
      ['chart_visitor_devices', 'from=2026-02-02&to=2026-02-01T00:00:00Z', 'from must be before to'],
      [
        'chart_visitor_devices',
        `${UTC_TWO_DAYS}&offset=abc`,
        'offset must be a whole number of minutes from -840 to 840 (JavaScript getTimezoneOffset: -120 is UTC+2)',
      ],
      [
        'chart_visitor_devices',
        `${UTC_TWO_DAYS}&offset=-841`,
        'offset must be a whole number of minutes from -840 to 840 (JavaScript getTimezoneOffset: -120 is UTC+2)',
      ],
      [
        'chart_visitor_devices',
        `${UTC_TWO_DAYS}&abTest=all`,
        'abTest is only supported by chart_page_to_page_conversion_rate',
      ],
      [
        'chart_page_to_page_conversion_rate',
        `${UTC_TWO_DAYS}&abTest=b`,
        'abTest must be one of all, original, variant',
      ],
    ])('answers 400 for %s?%s', async (subtype, query, error) => {
      const res = await chart(subtype, query);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error, status: 400 });
    });

    it('answers 400 when funnelId is not a UUID', async () => {
      const res = await chart('chart_visitor_devices', UTC_TWO_DAYS, acme.key, 'funnel-1');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'funnelId must be a UUID', status: 400 });
    });

    it('answers 403 without metrics:read', async () => {
      const res = await chart(
        'chart_visitor_devices',
        UTC_TWO_DAYS,
        await acme.keyFor('crm:read', 'events:write'),
      );
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'API key lacks the required permission: metrics:read', status: 403 });
    });

    it("answers 404 for another company's funnel", async () => {
      const res = await chart('chart_visitor_devices', UTC_TWO_DAYS, acme.key, globex.funnelId);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Funnel not found', status: 404 });
    });

    it("shows each company only its own funnel's figures", async () => {
      const own = await chart('chart_visitor_devices', UTC_TWO_DAYS, globex.key, globex.funnelId);
      // globex received the session events only once, without the fixture's duplicates: the same figures.
      expect(own.body.data).toEqual(await data('chart_visitor_devices', UTC_TWO_DAYS));
      const contacts = await chart('chart_contacts_over_time', UTC_TWO_DAYS, globex.key, globex.funnelId);
      expect(contacts.body.data).toEqual([
        { key: '2026-01-31', value: 1 },
        { key: '2026-02-01', value: 0 },
      ]);
    });
  });
});
