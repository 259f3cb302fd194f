import {
  EventsService,
  FILTER_NAMES,
  parseEventBatch,
  parseSegmentKey,
  SESSION_DIMENSIONS,
  RollupReader,
  FixedOffsetZone,
  SegmentFolder,
} from '@app/metrics';
import type { MetricWindow, SessionCounts } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';

// Monday 2025-03-10 09:00:00 UTC; every figure below is counted by hand from these events.
const T = Date.UTC(2025, 2, 10, 9, 0, 0);
const at = (seconds: number) => new Date(T + seconds * 1000).toISOString();
const EVENTS = [
  { type: 'session_start', sessionId: 's1', occurredAt: at(5), visitorId: 'v1', device: 'mobile' },
  { type: 'page_view', sessionId: 's1', occurredAt: at(12), pageSlug: 'start', timeOnPageMs: 3000 },
  { type: 'page_view', sessionId: 's1', occurredAt: at(40), pageSlug: 'details' },
  { type: 'conversion', sessionId: 's1', occurredAt: at(50) },
  { type: 'completion', sessionId: 's1', occurredAt: at(65) },
  { type: 'session_start', sessionId: 's2', occurredAt: at(31), visitorId: 'v2', device: 'desktop' },
  { type: 'page_view', sessionId: 's2', occurredAt: at(33), pageSlug: 'start', timeOnPageMs: 1000 },
  {
    type: 'button_click',
    sessionId: 's2',
    occurredAt: at(34),
    pageSlug: 'start',
    buttonId: 'cta',
    buttonLabel: 'Go',
  },
  {
    type: 'button_click',
    sessionId: 's2',
    occurredAt: at(80),
    pageSlug: 'details',
    buttonId: 'cta',
    buttonLabel: 'Next',
  },
  { type: 'session_start', sessionId: 's3', occurredAt: at(125), visitorId: 'v3', device: 'mobile' },
  { type: 'page_view', sessionId: 's3', occurredAt: at(126), pageSlug: 'start', timeOnPageMs: 500 },
  { type: 'completion', sessionId: 's3', occurredAt: at(200) },
];

const counts = (sessions: number, conversions = 0, completions = 0, completionMs = 0) => ({
  sessions,
  conversions,
  completions,
  completionMs,
});
const slots = (slot: number, views: number) =>
  Array.from({ length: 168 }, (_, i) => (i === slot ? views : 0));

/** Windows cut inside ten-second buckets and minutes, against figures worked out by hand. */
describe('metrics: window edges against hand-computed figures', () => {
  let t: TestApp;
  let tenant: TenantFixture;
  let reader: RollupReader;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t.app);
    reader = t.app.get(RollupReader);
    await t.app.get(EventsService).record(tenant.funnelId, parseEventBatch({ events: EVENTS }));
  });
  afterAll(() => t.close());

  // Every session (`all`) and the sessions per device, summed from the segments' totals as the
  // KPIs and the devices chart sum them, beside the sessions per page viewed.
  const sessions = async (window: MetricWindow) => {
    const got = await reader.sessions(tenant.funnelId, window, [
      SESSION_DIMENSIONS.segment,
      SESSION_DIMENSIONS.page,
    ]);
    const all: Record<string, SessionCounts> = {};
    const device: Record<string, SessionCounts> = {};
    for (const [key, c] of got.get(SESSION_DIMENSIONS.segment)!) {
      const add = (into: Record<string, SessionCounts>, k: string) => {
        const sum = (into[k] ??= { sessions: 0, conversions: 0, completions: 0, completionMs: 0 });
        sum.sessions += c.sessions;
        sum.conversions += c.conversions;
        sum.completions += c.completions;
        sum.completionMs += c.completionMs;
      };
      add(all, '');
      const value = parseSegmentKey(key)[FILTER_NAMES.indexOf('device')];
      if (value !== null) add(device, value);
    }
    return { all, device, page: Object.fromEntries(got.get(SESSION_DIMENSIONS.page)!) };
  };
  const events = async (window: MetricWindow, dimension: 'page' | 'button') =>
    Object.fromEntries(
      [...(await reader.events(tenant.funnelId, window, dimension))].map(([key, c]) => [
        key,
        { events: c.events, timed: c.timed, totalMs: c.totalMs, label: c.label },
      ]),
    );

  it('from 11.5 s to 79.999 s: s2 only started inside; three page views; one click', async () => {
    const window = { from: T + 11_500, to: T + 79_999, zone: new FixedOffsetZone(0) };
    expect(await sessions(window)).toEqual({
      all: { '': counts(1) },
      device: { desktop: counts(1) },
      page: { start: counts(1) },
    });
    expect(await events(window, 'page')).toEqual({
      start: { events: 2, timed: 2, totalMs: 4000, label: null },
      details: { events: 1, timed: 0, totalMs: 0, label: null },
    });
    expect(await events(window, 'button')).toEqual({ cta: { events: 1, timed: 0, totalMs: 0, label: 'Go' } });
    // Monday 09:00 UTC is slot 9 (ISO weekday 1, hour 09).
    expect(await reader.activity(tenant.funnelId, window)).toEqual(slots(9, 3));
  });

  it('from 4.999 s to 126 s at UTC+1: all three sessions with their completions, four page views at 10:00', async () => {
    const window = { from: T + 4_999, to: T + 126_000, zone: new FixedOffsetZone(-60) };
    // s1 converted and completed after 60 s; s3 completed after 75 s, outside the window but
    // counted at its start, which is inside; both are mobile.
    expect(await sessions(window)).toEqual({
      all: { '': counts(3, 1, 2, 135_000) },
      device: { mobile: counts(2, 1, 2, 135_000), desktop: counts(1) },
      page: { start: counts(3), details: counts(1) },
    });
    expect(await events(window, 'page')).toEqual({
      start: { events: 3, timed: 3, totalMs: 4500, label: null },
      details: { events: 1, timed: 0, totalMs: 0, label: null },
    });
    expect(await events(window, 'button')).toEqual({
      cta: { events: 2, timed: 0, totalMs: 0, label: 'Next' },
    });
    expect(await reader.activity(tenant.funnelId, window)).toEqual(slots(10, 4));
  });

  it('a filtered read cut inside a folded minute keeps the latest label inside the window', async () => {
    // One minute, folded: mobile clicks at 10 s ('Early') and 50 s ('Late'), a desktop click at 20 s.
    const other = await createTenant(t.app);
    const clicks = [
      { type: 'session_start', sessionId: 'm', occurredAt: at(1), visitorId: 'vm', device: 'mobile' },
      { type: 'session_start', sessionId: 'd', occurredAt: at(2), visitorId: 'vd', device: 'desktop' },
      ...[
        ['m', 10, 'Early'],
        ['d', 20, 'Desk'],
        ['m', 50, 'Late'],
      ].map(([sessionId, second, buttonLabel]) => ({
        type: 'button_click',
        sessionId,
        occurredAt: at(second as number),
        pageSlug: 'start',
        buttonId: 'cta',
        buttonLabel,
      })),
    ];
    await t.app.get(EventsService).record(other.funnelId, parseEventBatch({ events: clicks }));
    await t.app.get(SegmentFolder).drain(Date.now());
    const zone = new FixedOffsetZone(0);
    const buttons = async (from: number, to: number, device: string) =>
      Object.fromEntries(
        [...(await reader.events(other.funnelId, { from, to, zone }, 'button', { device: [device] }))].map(
          ([key, c]) => [key, { events: c.events, label: c.label }],
        ),
      );
    // 40 s and 35 s of the minute: read as the folded minute less the rest, whose labels do not count.
    expect(await buttons(T, T + 39_999, 'mobile')).toEqual({ cta: { events: 1, label: 'Early' } });
    expect(await buttons(T, T + 39_999, 'desktop')).toEqual({ cta: { events: 1, label: 'Desk' } });
    expect(await buttons(T + 25_000, T + 59_999, 'mobile')).toEqual({ cta: { events: 1, label: 'Late' } });
    expect(await buttons(T + 25_000, T + 59_999, 'desktop')).toEqual({});
    expect(await buttons(T, T + 59_999, 'mobile')).toEqual({ cta: { events: 2, label: 'Late' } });
  });

  it('one millisecond on a session start (inclusive ends) holds that session alone', async () => {
    const window = { from: T + 125_000, to: T + 125_000, zone: new FixedOffsetZone(0) };
    expect(await sessions(window)).toEqual({
      all: { '': counts(1, 0, 1, 75_000) },
      device: { mobile: counts(1, 0, 1, 75_000) },
      page: { start: counts(1) },
    });
    expect(await events(window, 'page')).toEqual({});
  });
});
