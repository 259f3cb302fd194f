import { DataSource } from 'typeorm';
import {
  AB_VARIANTS,
  DECLARED_DIMENSIONS,
  COUNTED_EVENTS,
  DECLARED_EVENT_DIMENSIONS,
  EventsService,
  parseEventBatch,
  sessionFromRow,
  SessionRow,
  SESSION_COLUMNS,
  SESSION_DIMENSIONS,
  sessionContributions,
  RollupReader,
  SegmentFolder,
  weekdayHourSlot,
  FixedOffsetZone,
} from '@app/metrics';
import type { CountedDimensionName, EventCounts, EventType, SessionCounts, MetricWindow } from '@app/metrics';
import { createRandom } from '../apps/admin/src/demo/demo-data';
import { QUESTIONS, randomTraffic, SPAN, T0 } from './support/random-traffic';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';

// Windows cut inside minutes and ten-second buckets, so their edges are read raw. Every declared
// session dimension, with the parameters the traffic gives (A/B variants, questions): a dimension
// declared later is compared here without a change to this suite.
const DIMENSIONS = DECLARED_DIMENSIONS.flatMap(([name, d]): string[] => {
  if (d.shape === 'answers') return QUESTIONS.map((q) => `${name}${q}`);
  if (d.shape !== 'pages' || !d.by) return [name];
  if (d.by !== 'abVariant') throw new Error(`no traffic values for ${d.by}`);
  return AB_VARIANTS.map((variant) => `${name}${variant}`);
});

type Totals = Map<string, Map<string, SessionCounts>>;
type EventTotals = Record<string, { events: number; timed: number; totalMs: number; label: string | null }>;

// Ingesting the traffic and reading 40 windows take longer than jest's default 5 s on a loaded machine.
jest.setTimeout(60_000);

describe('metrics: window edges read from raw rows (or a whole bucket less raw rows) sum exactly', () => {
  let t: TestApp;
  let tenant: TenantFixture;
  let reader: RollupReader;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t.app);
    reader = t.app.get(RollupReader);
    db = t.app.get(DataSource);
    const raw = randomTraffic(42, 400);
    const events = t.app.get(EventsService);
    for (let i = 0; i < raw.length; i += 1000) {
      await events.record(tenant.funnelId, parseEventBatch({ events: raw.slice(i, i + 1000) }));
    }
  });

  afterAll(() => t.close());

  /** The reference: every session of the window read back whole, counted by sessionContributions(). */
  async function expected(from: number, to: number): Promise<Totals> {
    const rows: SessionRow[] = await db.query(
      `SELECT ${SESSION_COLUMNS} FROM metric_sessions WHERE funnel_id = $1 AND started_at >= $2 AND started_at <= $3`,
      [tenant.funnelId, new Date(from), new Date(to)],
    );
    const totals: Totals = new Map(DIMENSIONS.map((d) => [d, new Map()]));
    for (const row of rows) {
      for (const c of sessionContributions(sessionFromRow(row))) {
        const sums = totals.get(c.dimension) as Map<string, SessionCounts>;
        const total = sums.get(c.key) ?? { sessions: 0, conversions: 0, completions: 0, completionMs: 0 };
        total.sessions += c.sessions;
        total.conversions += c.conversions;
        total.completions += c.completions;
        total.completionMs += c.completionMs;
        sums.set(c.key, total);
      }
    }
    return totals;
  }

  /** The reference for page views, clicks and activity: the window's raw events, counted in Node. */
  async function expectedEvents(from: number, to: number, offset: number) {
    const rows: { type: string; at: Date; payload: Record<string, unknown> }[] = await db.query(
      `SELECT type, occurred_at AS at, payload FROM metric_events
       WHERE funnel_id = $1 AND occurred_at >= $2 AND occurred_at <= $3 AND type IN ('page_view', 'button_click')`,
      [tenant.funnelId, new Date(from), new Date(to)],
    );
    const page: EventTotals = {};
    const button: EventTotals = {};
    const latest: Record<string, { at: number; label: string }> = {};
    const slots = new Array<number>(168).fill(0);
    for (const { type, at, payload } of rows) {
      const key = String(type === 'page_view' ? payload.pageSlug : payload.buttonId);
      const sums = type === 'page_view' ? page : button;
      const total = (sums[key] ??= { events: 0, timed: 0, totalMs: 0, label: null });
      total.events++;
      if (typeof payload.timeOnPageMs === 'number') {
        total.timed++;
        total.totalMs += payload.timeOnPageMs;
      }
      const label = payload.buttonLabel as string | undefined;
      const was = latest[key];
      if (label && (!was || at.getTime() > was.at || (at.getTime() === was.at && label > was.label))) {
        latest[key] = { at: at.getTime(), label };
        total.label = label;
      }
      if (type === 'page_view') slots[weekdayHourSlot(at.getTime(), offset)]++;
    }
    return { page, button, slots };
  }

  /**
   * The dimensions read as the charts and insights read them: each on its own, a question's two
   * together (edges narrowed to its answers). Without `all`, edge sessions are summed per
   * combination of what is read before they are counted.
   */
  async function expectReadAlone(window: MetricWindow, want: Totals) {
    const alone = [
      ...DIMENSIONS.filter((d) => !d.startsWith('answer')).map((d) => [d]),
      ...QUESTIONS.map((q) => [SESSION_DIMENSIONS.answer(q), SESSION_DIMENSIONS.answerGroup(q)]),
    ];
    for (const dimensions of alone) {
      const got = await reader.sessions(tenant.funnelId, window, dimensions);
      for (const dimension of dimensions)
        expect({ dimension, sums: Object.fromEntries(got.get(dimension) ?? []) }).toEqual({
          dimension,
          sums: Object.fromEntries(want.get(dimension) ?? []),
        });
    }
  }

  /**
   * Every declared dimension counted from events, read as the charts read it, against the window's
   * raw events counted in Node by the dimension's declaration: a dimension declared later is
   * compared here without a change to this suite.
   */
  async function expectEachEventDimension(window: MetricWindow) {
    const rows: { type: EventType; at: Date; payload: Record<string, never> }[] = await db.query(
      `SELECT type, occurred_at AS at, payload FROM metric_events
       WHERE funnel_id = $1 AND occurred_at >= $2 AND occurred_at <= $3`,
      [tenant.funnelId, new Date(window.from), new Date(window.to)],
    );
    expect(DECLARED_EVENT_DIMENSIONS.length).toBeGreaterThan(2);
    for (const [dimension, d] of DECLARED_EVENT_DIMENSIONS) {
      const want: EventTotals = {};
      const latest: Record<string, number> = {};
      for (const r of rows.filter((row) => row.type === d.type)) {
        const columns = COUNTED_EVENTS[d.type](r.payload);
        const key = d.keyed ? columns.key : '';
        const total = (want[key] ??= { events: 0, timed: 0, totalMs: 0, label: null });
        total.events += 1;
        if (d.timed && columns.timeOnPageMs !== undefined) {
          total.timed += 1;
          total.totalMs += columns.timeOnPageMs;
        }
        const at = r.at.getTime();
        const was = latest[key];
        if (
          d.labelled &&
          columns.label !== undefined &&
          (was === undefined || at > was || (at === was && columns.label > (total.label as string)))
        ) {
          latest[key] = at;
          total.label = columns.label;
        }
      }
      expect({
        dimension,
        sums: plain(await reader.events(tenant.funnelId, window, dimension as CountedDimensionName)),
      }).toEqual({
        dimension,
        sums: want,
      });
    }
  }

  const plain = (sums: Map<string, EventCounts>): EventTotals =>
    Object.fromEntries(
      [...sums].map(([key, c]) => [
        key,
        { events: c.events, timed: c.timed, totalMs: c.totalMs, label: c.label },
      ]),
    );

  /** Every dimension read over the window, alone and together, against the references. */
  async function expectWindow(window: MetricWindow & { offset: number }) {
    const got = await reader.sessions(tenant.funnelId, window, DIMENSIONS);
    const want = await expected(window.from, window.to);
    for (const dimension of DIMENSIONS) {
      expect({ dimension, sums: Object.fromEntries(got.get(dimension) ?? []) }).toEqual({
        dimension,
        sums: Object.fromEntries(want.get(dimension) ?? []),
      });
    }
    await expectReadAlone(window, want);
    const events = await expectedEvents(window.from, window.to, window.offset);
    expect(plain(await reader.events(tenant.funnelId, window, 'page'))).toEqual(events.page);
    expect(plain(await reader.events(tenant.funnelId, window, 'button'))).toEqual(events.button);
    expect(await reader.activity(tenant.funnelId, window)).toEqual(events.slots);
    await expectEachEventDimension(window);
  }

  const WINDOWS: [string, number, number][] = [
    ['inside ten seconds', 21_250, 27_999],
    ['across a ten-second boundary', 38_001, 41_500],
    ['inside one minute', 15_250, 47_999],
    ['across a minute boundary', 30_001, 75_500],
    ['two partial minutes around a whole one', 59_999, 120_001],
    ['the whole span less a millisecond at each end', 1, SPAN - 2],
    ['one millisecond', 100_123, 100_123],
  ];
  const utc = (fromOffset: number, toOffset: number) => ({
    from: T0 + fromOffset,
    to: T0 + toOffset,
    offset: 0,
    zone: new FixedOffsetZone(0),
  });

  it('has sessions in every dimension to compare', async () => {
    const all = await expected(T0, T0 + SPAN);
    const segments = [...(all.get(SESSION_DIMENSIONS.segment) as Map<string, SessionCounts>).values()];
    expect(segments.reduce((sum, c) => sum + c.sessions, 0)).toBe(400);
    for (const dimension of DIMENSIONS) expect(all.get(dimension)?.size).toBeGreaterThan(0);
    // Duplicate answers within one answer event exist, so the distinct-answer rule is exercised.
    const groups = all.get(SESSION_DIMENSIONS.answerGroup('question_1')) as Map<string, SessionCounts>;
    expect([...groups.keys()].some((k) => k.includes('; '))).toBe(true);
  });

  describe('as ingested (raw where nothing is folded yet)', () => {
    it.each(WINDOWS)('%s', async (_name, fromOffset, toOffset) => {
      await expectWindow(utc(fromOffset, toOffset));
    });
  });

  describe('folded: whole buckets of the segment rollups, less or plus raw rows', () => {
    beforeAll(async () => {
      await t.app.get(SegmentFolder).drain(Date.now());
    });

    it.each(WINDOWS)('%s', async (_name, fromOffset, toOffset) => {
      await expectWindow(utc(fromOffset, toOffset));
    });

    it('agrees on 40 random windows at whole-hour and half-hour offsets', async () => {
      const random = createRandom(7);
      for (let n = 0; n < 40; n++) {
        const a = Math.floor(random() * SPAN);
        const b = Math.floor(random() * SPAN);
        const offset = n % 2 ? -330 : 60;
        await expectWindow({
          from: T0 + Math.min(a, b),
          to: T0 + Math.max(a, b),
          offset,
          zone: new FixedOffsetZone(offset),
        });
      }
    });
  });
});
