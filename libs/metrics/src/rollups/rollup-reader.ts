import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { MetricWindow } from '../query/metric-query';
import { GRAINS } from '../time/buckets';
import { weekdayHourSlot, SLOTS } from '../time/local-time';
import { Cover, coverWindow, Range } from '../time/time-cover';
import { rawSessionSums } from './raw-sessions';
import { EVENT_DIMENSIONS, EventCounts, laterLabel, SessionCounts } from './rollup-deltas';

type Sums<C> = Map<string, C>;

const emptyEvents = (): EventCounts => ({ events: 0, timed: 0, totalMs: 0, label: null, labelAt: null });
const emptySessions = (): SessionCounts => ({ sessions: 0, conversions: 0, completions: 0, completionMs: 0 });

const iso = (ms: number) => new Date(ms).toISOString();
const segmentParams = (cover: Cover) => [
  cover.segments.map((s) => s.grain),
  cover.segments.map((s) => iso(s.from)),
  cover.segments.map((s) => iso(s.to)),
];
const rangeParams = (ranges: Range[]) => [ranges.map((r) => iso(r.from)), ranges.map((r) => iso(r.to))];

// Whole buckets come from the rollups, the sub-minute edges of the window from raw rows; each piece
// is one index range scan, so neither grows with the number of events in the window. The pieces
// are joined LATERAL with OFFSET 0, which keeps the subquery from being flattened: the planner
// cannot hash a whole funnel's rows instead of scanning a few ranges.
const SEGMENTS = `unnest($2::smallint[], $3::timestamptz[], $4::timestamptz[]) AS s(grain, lo, hi)`;
const RANGES = `unnest($2::timestamptz[], $3::timestamptz[]) WITH ORDINALITY AS s(lo, hi, i)`;
const IN_SEGMENT = `r.grain = s.grain AND r.bucket >= s.lo AND r.bucket < s.hi`;

type SessionSumRow = Record<
  'dimension' | 'key' | 'sessions' | 'conversions' | 'completions' | 'completion_ms',
  string
>;
const sessionCounts = (r: SessionSumRow): SessionCounts => ({
  sessions: Number(r.sessions),
  conversions: Number(r.conversions),
  completions: Number(r.completions),
  completionMs: Number(r.completion_ms),
});

type EventRow = {
  key: string;
  events: string;
  timed: string;
  total_ms: string;
  label: string | null;
  label_at: Date | null;
};

/** Reads the rollups of a window: sums per dimension and key, exact for any from/to/offset. */
@Injectable()
export class RollupReader {
  constructor(private readonly dataSource: DataSource) {}

  /** Session counters per dimension and key, over sessions that started in the window. */
  async sessions(
    funnelId: string,
    window: MetricWindow,
    dimensions: string[],
  ): Promise<Map<string, Sums<SessionCounts>>> {
    const cover = coverWindow(window.from, window.to + 1, GRAINS);
    const result = new Map<string, Sums<SessionCounts>>(dimensions.map((d) => [d, new Map()]));
    const add = (dimension: string, key: string, c: SessionCounts) => {
      const sums = result.get(dimension);
      if (!sums) return;
      const total = sums.get(key) ?? emptySessions();
      total.sessions += c.sessions;
      total.conversions += c.conversions;
      total.completions += c.completions;
      total.completionMs += c.completionMs;
      sums.set(key, total);
    };
    if (cover.segments.length) {
      const rows: SessionSumRow[] = await this.dataSource.query(
        `SELECT r.dimension, r.key, sum(r.sessions) AS sessions, sum(r.conversions) AS conversions,
                  sum(r.completions) AS completions, sum(r.completion_ms) AS completion_ms
           FROM ${SEGMENTS}
           CROSS JOIN LATERAL (
             SELECT * FROM metric_session_rollups r
             WHERE r.funnel_id = $1 AND r.dimension = ANY($5::text[]) AND ${IN_SEGMENT} OFFSET 0
           ) AS r
           GROUP BY r.dimension, r.key`,
        [funnelId, ...segmentParams(cover), dimensions],
      );
      for (const r of rows) add(r.dimension, r.key, sessionCounts(r));
    }
    if (cover.raw.length) {
      const sums = rawSessionSums(dimensions, 4);
      const rows: SessionSumRow[] = await this.dataSource.query(
        `WITH m AS (
           SELECT m.* FROM ${RANGES}
           CROSS JOIN LATERAL (
             SELECT * FROM metric_sessions m WHERE m.funnel_id = $1 AND m.started_at >= s.lo AND m.started_at < s.hi OFFSET 0
           ) AS m
         )
         ${sums.sql}`,
        [funnelId, ...rangeParams(cover.raw), ...sums.params],
      );
      for (const r of rows) add(r.dimension, r.key, sessionCounts(r));
    }
    for (const sums of result.values()) {
      for (const [key, c] of sums) if (!c.sessions) sums.delete(key);
    }
    return result;
  }

  /** Page views (dimension page) or clicks (dimension button) per key, at their own time in the window. */
  async events(
    funnelId: string,
    window: MetricWindow,
    dimension: 'page' | 'button',
  ): Promise<Sums<EventCounts>> {
    const cover = coverWindow(window.from, window.to + 1, GRAINS);
    const sums: Sums<EventCounts> = new Map();
    const add = (r: EventRow) => {
      const total = sums.get(r.key) ?? emptyEvents();
      total.events += Number(r.events);
      total.timed += Number(r.timed);
      total.totalMs += Number(r.total_ms);
      laterLabel(total, r.label, r.label_at?.getTime() ?? null);
      sums.set(r.key, total);
    };
    if (cover.segments.length) (await this.eventSegments(funnelId, cover, dimension)).forEach(add);
    if (cover.raw.length) {
      const [type, keyField] =
        dimension === EVENT_DIMENSIONS.page ? ['page_view', 'pageSlug'] : ['button_click', 'buttonId'];
      const label = `e.payload->>'buttonLabel'`;
      const rows: EventRow[] = await this.dataSource.query(
        `SELECT e.payload->>'${keyField}' AS key, count(*) AS events, count(e.payload->'timeOnPageMs') AS timed,
                coalesce(sum((e.payload->>'timeOnPageMs')::bigint), 0) AS total_ms,
                (array_agg(${label} ORDER BY e.occurred_at DESC, ${label} COLLATE "C" DESC)
                  FILTER (WHERE ${label} IS NOT NULL))[1] AS label,
                max(e.occurred_at) FILTER (WHERE ${label} IS NOT NULL) AS label_at
         FROM ${RANGES}
         CROSS JOIN LATERAL (
           SELECT * FROM metric_events e
           WHERE e.funnel_id = $1 AND e.occurred_at >= s.lo AND e.occurred_at < s.hi AND e.type = $4 OFFSET 0
         ) AS e
         GROUP BY 1`,
        [funnelId, ...rangeParams(cover.raw), type],
      );
      rows.forEach(add);
    }
    return sums;
  }

  /** Messages sent in the window that were delivered (or opened) and opened, by send time. */
  async messages(funnelId: string, window: MetricWindow): Promise<{ delivered: number; opened: number }> {
    const cover = coverWindow(window.from, window.to + 1, GRAINS);
    const counts = { delivered: 0, opened: 0 };
    if (cover.segments.length) {
      for (const r of await this.eventSegments(funnelId, cover, EVENT_DIMENSIONS.message)) {
        if (r.key === 'delivered' || r.key === 'opened') counts[r.key] += Number(r.events);
      }
    }
    if (cover.raw.length) {
      const [row]: { delivered: string; opened: string }[] = await this.dataSource.query(
        `SELECT count(*) FILTER (WHERE m.delivered_at IS NOT NULL OR m.opened_at IS NOT NULL) AS delivered,
                count(*) FILTER (WHERE m.opened_at IS NOT NULL) AS opened
         FROM ${RANGES}
         CROSS JOIN LATERAL (
           SELECT m.delivered_at, m.opened_at FROM contact_messages c
           JOIN metric_messages m ON m.funnel_id = c.funnel_id AND m.message_id = c.id
           WHERE c.funnel_id = $1 AND c.created_at >= s.lo AND c.created_at < s.hi OFFSET 0
         ) AS m`,
        [funnelId, ...rangeParams(cover.raw)],
      );
      counts.delivered += Number(row.delivered);
      counts.opened += Number(row.opened);
    }
    return counts;
  }

  /** Page views per local weekday-hour slot (0..167). */
  async activity(funnelId: string, window: MetricWindow): Promise<number[]> {
    // A bucket must not straddle a local hour: whole hours only when the offset is whole hours, etc.
    const grains = [60, 15, 1].filter((g) => window.offset % g === 0);
    const cover = coverWindow(window.from, window.to + 1, grains);
    const slots = new Array<number>(SLOTS).fill(0);
    if (cover.segments.length) {
      // h: local hours since the epoch; 1970-01-01 was a Thursday (ISO weekday 4).
      const rows: { slot: number; events: string }[] = await this.dataSource.query(
        `SELECT ((h / 24 + 3) % 7) * 24 + h % 24 AS slot, sum(events) AS events
         FROM (
           SELECT (extract(epoch FROM r.bucket)::bigint / 60 - $6) / 60 AS h, r.events
           FROM ${SEGMENTS}
           CROSS JOIN LATERAL (
             SELECT r.bucket, r.events, r.grain FROM metric_event_rollups r
             WHERE r.funnel_id = $1 AND r.dimension = $5 AND ${IN_SEGMENT} OFFSET 0
           ) AS r
         ) AS b
         GROUP BY 1`,
        [funnelId, ...segmentParams(cover), EVENT_DIMENSIONS.activity, window.offset],
      );
      for (const r of rows) slots[Number(r.slot)] += Number(r.events);
    }
    if (cover.raw.length) {
      const rows: { i: string; events: string }[] = await this.dataSource.query(
        `SELECT s.i, count(*) AS events FROM ${RANGES}
         CROSS JOIN LATERAL (
           SELECT 1 FROM metric_events e
           WHERE e.funnel_id = $1 AND e.occurred_at >= s.lo AND e.occurred_at < s.hi AND e.type = 'page_view' OFFSET 0
         ) AS e
         GROUP BY s.i`,
        [funnelId, ...rangeParams(cover.raw)],
      );
      // A raw piece lies within one minute, hence within one local hour.
      for (const r of rows)
        slots[weekdayHourSlot(cover.raw[Number(r.i) - 1].from, window.offset)] += Number(r.events);
    }
    return slots;
  }

  private eventSegments(funnelId: string, cover: Cover, dimension: string): Promise<EventRow[]> {
    // The latest label of the window: the label of the bucket row with the latest label time.
    return this.dataSource.query(
      `SELECT r.key, sum(r.events) AS events, sum(r.timed) AS timed, sum(r.total_ms) AS total_ms,
              (array_agg(r.label ORDER BY r.label_at DESC, r.label COLLATE "C" DESC)
                FILTER (WHERE r.label_at IS NOT NULL))[1] AS label,
              max(r.label_at) AS label_at
       FROM ${SEGMENTS}
       CROSS JOIN LATERAL (
         SELECT * FROM metric_event_rollups r WHERE r.funnel_id = $1 AND r.dimension = $5 AND ${IN_SEGMENT} OFFSET 0
       ) AS r
       GROUP BY r.key`,
      [funnelId, ...segmentParams(cover), dimension],
    );
  }
}
