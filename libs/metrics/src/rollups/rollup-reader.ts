import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { sessionContributions } from '../events/session-state';
import { sessionFromRow, SessionRow, SESSION_COLUMNS } from '../events/event-store';
import type { MetricWindow } from '../query/metric-query';
import { GRAINS } from '../time/buckets';
import { weekdayHourSlot, SLOTS } from '../time/local-time';
import { Cover, coverWindow, Range } from '../time/time-cover';
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
// is one index range scan (LATERAL keeps the planner from hashing a whole funnel's rows instead).
// Neither grows with the number of events in the window.
const SEGMENTS = `unnest($2::smallint[], $3::timestamptz[], $4::timestamptz[]) AS s(grain, lo, hi)`;
const RANGES = `unnest($2::timestamptz[], $3::timestamptz[]) WITH ORDINALITY AS s(lo, hi, i)`;

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
      const rows: {
        dimension: string;
        key: string;
        sessions: string;
        conversions: string;
        completions: string;
        completion_ms: string;
      }[] = await this.dataSource.query(
        `SELECT r.dimension, r.key, sum(r.sessions) AS sessions, sum(r.conversions) AS conversions,
                  sum(r.completions) AS completions, sum(r.completion_ms) AS completion_ms
           FROM ${SEGMENTS}
           CROSS JOIN LATERAL (
             SELECT * FROM metric_session_rollups r WHERE r.funnel_id = $1 AND r.dimension = ANY($5::text[])
               AND r.grain = s.grain AND r.bucket >= s.lo AND r.bucket < s.hi
           ) AS r
           GROUP BY r.dimension, r.key`,
        [funnelId, ...segmentParams(cover), dimensions],
      );
      for (const r of rows) {
        add(r.dimension, r.key, {
          sessions: Number(r.sessions),
          conversions: Number(r.conversions),
          completions: Number(r.completions),
          completionMs: Number(r.completion_ms),
        });
      }
    }
    if (cover.raw.length) {
      const rows: SessionRow[] = await this.dataSource.query(
        `SELECT ${SESSION_COLUMNS} FROM ${RANGES}
         CROSS JOIN LATERAL (
           SELECT * FROM metric_sessions m WHERE m.funnel_id = $1 AND m.started_at >= s.lo AND m.started_at < s.hi
         ) AS m`,
        [funnelId, ...rangeParams(cover.raw)],
      );
      for (const row of rows) {
        for (const c of sessionContributions(sessionFromRow(row))) add(c.dimension, c.key, c);
      }
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
    const add = (
      key: string,
      events: number,
      timed: number,
      totalMs: number,
      label: string | null,
      labelAt: Date | null,
    ) => {
      const total = sums.get(key) ?? emptyEvents();
      total.events += events;
      total.timed += timed;
      total.totalMs += totalMs;
      laterLabel(total, label, labelAt?.getTime() ?? null);
      sums.set(key, total);
    };
    type Row = {
      key: string;
      events: string;
      timed: string;
      total_ms: string;
      label: string | null;
      label_at: Date | null;
    };
    if (cover.segments.length) {
      // The latest label of the window: the label of the bucket row with the latest label time.
      const rows: Row[] = await this.dataSource.query(
        `SELECT r.key, sum(r.events) AS events, sum(r.timed) AS timed, sum(r.total_ms) AS total_ms,
                (array_agg(r.label ORDER BY r.label_at DESC, r.label COLLATE "C" DESC) FILTER (WHERE r.label_at IS NOT NULL))[1] AS label,
                max(r.label_at) AS label_at
         FROM ${SEGMENTS}
         CROSS JOIN LATERAL (
           SELECT * FROM metric_event_rollups r WHERE r.funnel_id = $1 AND r.dimension = $5
             AND r.grain = s.grain AND r.bucket >= s.lo AND r.bucket < s.hi
         ) AS r
         GROUP BY r.key`,
        [funnelId, ...segmentParams(cover), dimension],
      );
      for (const r of rows)
        add(r.key, Number(r.events), Number(r.timed), Number(r.total_ms), r.label, r.label_at);
    }
    if (cover.raw.length) {
      const type = dimension === EVENT_DIMENSIONS.page ? 'page_view' : 'button_click';
      const keyField = dimension === EVENT_DIMENSIONS.page ? 'pageSlug' : 'buttonId';
      const rows: Row[] = await this.dataSource.query(
        `SELECT e.payload->>'${keyField}' AS key, count(*) AS events,
                count(e.payload->'timeOnPageMs') AS timed,
                coalesce(sum((e.payload->>'timeOnPageMs')::bigint), 0) AS total_ms,
                (array_agg(e.payload->>'buttonLabel' ORDER BY e.occurred_at DESC, e.payload->>'buttonLabel' COLLATE "C" DESC)
                  FILTER (WHERE e.payload->>'buttonLabel' IS NOT NULL))[1] AS label,
                max(e.occurred_at) FILTER (WHERE e.payload->>'buttonLabel' IS NOT NULL) AS label_at
         FROM ${RANGES}
         CROSS JOIN LATERAL (
           SELECT * FROM metric_events e WHERE e.funnel_id = $1 AND e.occurred_at >= s.lo AND e.occurred_at < s.hi AND e.type = $4
         ) AS e
         GROUP BY 1`,
        [funnelId, ...rangeParams(cover.raw), type],
      );
      for (const r of rows)
        add(r.key, Number(r.events), Number(r.timed), Number(r.total_ms), r.label, r.label_at);
    }
    return sums;
  }

  /** Page views per local weekday-hour slot (0..167). */
  async activity(funnelId: string, window: MetricWindow): Promise<number[]> {
    // A bucket must not straddle a local hour: whole hours only when the offset is whole hours, etc.
    const grains = [60, 15, 1].filter((g) => window.offset % g === 0);
    const cover = coverWindow(window.from, window.to + 1, grains);
    const slots = new Array<number>(SLOTS).fill(0);
    if (cover.segments.length) {
      // Local hour index h since the epoch; 1970-01-01 was a Thursday (ISO weekday 4).
      const rows: { slot: number; events: string }[] = await this.dataSource.query(
        `SELECT ((h / 24 + 3) % 7) * 24 + h % 24 AS slot, sum(events) AS events
         FROM (
           SELECT (extract(epoch FROM r.bucket)::bigint / 60 - $6) / 60 AS h, r.events
           FROM ${SEGMENTS}
           CROSS JOIN LATERAL (
             SELECT r.bucket, r.events FROM metric_event_rollups r WHERE r.funnel_id = $1 AND r.dimension = $5
               AND r.grain = s.grain AND r.bucket >= s.lo AND r.bucket < s.hi
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
           WHERE e.funnel_id = $1 AND e.occurred_at >= s.lo AND e.occurred_at < s.hi AND e.type = 'page_view'
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
}
