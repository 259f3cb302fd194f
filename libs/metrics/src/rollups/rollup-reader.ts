import { Injectable } from '@nestjs/common';
import { ReadPool } from '@app/core';
import { isFiltered, MetricWindow, SessionFilter } from '../query/metric-query';
import {
  inSessionRollups,
  SESSION_DIMENSIONS,
  sessionDimension,
  START_ATTRIBUTES,
} from '../events/session-definitions';
import type { FilterName } from '../events/session-definitions';
import {
  CountedDimensionName,
  countedDimension,
  MESSAGE_KEYS,
  MessageDimensionName,
} from '../events/event-definitions';
import { EVENT_GRAINS, FINEST_SEGMENT_GRAIN, SEGMENT_GRAINS, SESSION_GRAINS } from '../time/buckets';
import { inSegmentRollups, inSessionsDocument } from '../segments/segment-rows';
import {
  cellsOf,
  partialLabelKeys,
  segmentEventSums,
  segmentRollupRows,
  segmentSessionSums,
  segmentTotalSums,
} from '../segments/segment-sql';
import {
  foldedSessionCover,
  guardedMinutes,
  SegmentPlan,
  SegmentPlanner,
  usableMinutesSql,
} from '../segments/segment-state';
import { SLOTS } from '../time/local-time';
import { SqlParams } from '../sql/sql-params';
import { coverWindow, signedCover } from '../time/time-cover';
import type { Cover, CoverOptions, RawPiece } from '../time/time-cover';
import { fitsLocalHours, offsetAtSql } from '../time/zone-sql';
import { pieceScans, segmentRows, segments } from './cover-sql';
import { rawEventCount, rawEvents, rawMessages } from './raw-events';
import { rawSessionSums } from './raw-sessions';
import { sessionFilterSql, sessionJoinSql } from './session-filter-sql';
import { EventCounts, laterLabel, SessionCounts } from './rollup-deltas';

type Sums<C> = Map<string, C>;

const emptyEvents = (): EventCounts => ({ events: 0, timed: 0, totalMs: 0, label: null, labelAt: null });

// The weekday-hour slot (0..167) of `h`, local hours since the epoch; 1970-01-01 was a Thursday
// (ISO weekday 4).
const minuteOf = (time: string) => `floor(extract(epoch FROM ${time}) / 60)::bigint`;
const SLOT = `((h / 24 + 3) % 7) * 24 + h % 24`;

type SessionSumRow = Record<
  'dimension' | 'key' | 'sessions' | 'conversions' | 'completions' | 'completion_ms',
  string
>;

type EventRow = {
  key: string;
  events: string;
  timed: string;
  total_ms: string;
  label: string | null;
  label_at: Date | null;
};

/**
 * A latest label cannot be subtracted, and a coarse bucket's may lie outside the window, where
 * finding the latest inside would scan the bucket's raw rows: a labelled dimension (clicks) reaches
 * past the window's edges with its finest buckets only (signedCover).
 */
const labelCover = (dimension: CountedDimensionName): Pick<CoverOptions, 'coarseOutside'> => ({
  coarseOutside: !countedDimension(dimension).labelled,
});

/** Reads the rollups of a window: sums per dimension and key, exact for any from/to and time zone. */
@Injectable()
export class RollupReader {
  constructor(
    private readonly reads: ReadPool,
    private readonly planner: SegmentPlanner,
  ) {}

  /**
   * A filtered read over the segment rollups: planned over what is folded, then run; run again
   * when ingestion recorded a change meanwhile. The third attempt reads every minute raw, in one
   * statement and so one snapshot: the answer is exact however much late traffic keeps arriving.
   * All on one server: a plan from the primary must not meet rollups on a replica behind it.
   */
  private planned<T>(
    funnelId: string,
    window: MetricWindow,
    grains: readonly number[],
    read: (plan: SegmentPlan) => Promise<T>,
    options: Pick<CoverOptions, 'coarseOutside'> = {},
  ): Promise<T> {
    return this.reads.onOneServer(async () => {
      for (let attempt = 1; attempt < 3; attempt++) {
        const plan = await this.planner.plan(funnelId, window.from, window.to + 1, grains, options);
        const result = await read(plan);
        if (!(await this.planner.changedSince(funnelId, plan))) return result;
      }
      return read(this.planner.rawPlan(window.from, window.to + 1, grains, options));
    });
  }

  /**
   * Session counters per dimension and key, over sessions that started in the window. From the
   * session rollups (rolledSessions), except with a filter (they count every session) and for the
   * `segment` dimension (they do not hold it): then from the segment rollups.
   */
  async sessions(
    funnelId: string,
    window: MetricWindow,
    dimensions: string[],
    filter: SessionFilter = {},
  ): Promise<Map<string, Sums<SessionCounts>>> {
    if (isFiltered(filter)) return this.foldedSessions(funnelId, window, dimensions, filter);
    const rolled = dimensions.filter((d) => inSessionRollups(sessionDimension(d).definition));
    const folded = dimensions.filter((d) => !rolled.includes(d));
    const [fromRollups, fromFolds] = await Promise.all([
      rolled.length ? this.rolledSessions(funnelId, window, rolled) : new Map(),
      folded.length ? this.foldedSessions(funnelId, window, folded, filter) : new Map(),
    ]);
    return new Map([...fromRollups, ...fromFolds]);
  }

  /**
   * The session counters per segment key of the sessions the filter matches (every session
   * without one) that started in the window: the segment rollups' totals of the folded buckets,
   * the sessions themselves for the rest.
   */
  async segments(
    funnelId: string,
    window: MetricWindow,
    filter: SessionFilter,
  ): Promise<Sums<SessionCounts>> {
    const sums = await this.sessions(funnelId, window, [SESSION_DIMENSIONS.segment], filter);
    return sums.get(SESSION_DIMENSIONS.segment)!;
  }

  /**
   * Session counters of dimensions the session rollups hold, of every session: ingestion's grains,
   * and at an edge off the minute the fold's ten-second rows where the statement finds that they
   * may be read (foldedSessionCover), so the edge reads at most five seconds of sessions there.
   */
  private rolledSessions(
    funnelId: string,
    window: MetricWindow,
    dimensions: string[],
  ): Promise<Map<string, Sums<SessionCounts>>> {
    const minutes = signedCover(window.from, window.to + 1, SESSION_GRAINS);
    return this.sessionSums(
      funnelId,
      dimensions,
      {},
      minutes.raw.length ? foldedSessionCover(minutes) : minutes,
    );
  }

  /** Session counters of dimensions the segment rollups hold, planned over what is folded (see planned). */
  private foldedSessions(
    funnelId: string,
    window: MetricWindow,
    dimensions: string[],
    filter: SessionFilter,
  ): Promise<Map<string, Sums<SessionCounts>>> {
    if (!dimensions.every(inSegmentRollups))
      throw new Error(`no segment rollups of ${dimensions.join(', ')}`);
    return this.planned(funnelId, window, SEGMENT_GRAINS, (plan) =>
      this.sessionSums(
        funnelId,
        dimensions,
        filter,
        { segments: [], raw: plan.raw, finest: FINEST_SEGMENT_GRAIN },
        plan,
      ),
    );
  }

  /**
   * Session counters per dimension and key: the session rollups' buckets of `cover` and its raw
   * pieces, those guarded as the statement finds the fold (foldedSessionCover); with `plan`, also
   * the segment rollups' whole buckets.
   */
  private async sessionSums(
    funnelId: string,
    dimensions: string[],
    filter: SessionFilter,
    cover: Cover,
    plan?: SegmentPlan,
  ): Promise<Map<string, Sums<SessionCounts>>> {
    const params = new SqlParams();
    const funnel = params.bind(funnelId);
    const matching = sessionFilterSql(filter, params);
    const inSegments = segments(cover, params);
    const wanted = params.bind(dimensions, 'text[]');
    const raw = rawSessionSums(dimensions, params);
    // The guards' minutes whose folded rows may be read, decided in the statement's snapshot.
    const minutes = guardedMinutes(cover);
    const usable = minutes.length ? 'SELECT u.minute FROM usable u' : undefined;
    const guard = (piece: RawPiece) => {
      if (!piece.guard || !usable) return '';
      const minute = params.bind(new Date(piece.guard.minute).toISOString(), 'timestamptz');
      return ` AND ${piece.guard.folded ? '' : 'NOT '}EXISTS (${usable} WHERE u.minute = ${minute})`;
    };
    const edges = pieceScans(
      cover.raw,
      params,
      (lo, hi, sign, piece) => `SELECT ${sign} AS sign, ${raw.columns} FROM metric_sessions m
        WHERE m.funnel_id = ${funnel} AND m.started_at >= ${lo} AND m.started_at < ${hi} ${raw.where}${matching}${guard(piece)}`,
    );
    const usableCte = usable
      ? `usable AS MATERIALIZED (${usableMinutesSql(
          funnel,
          params.bind(
            minutes.map((m) => new Date(m).toISOString()),
            'timestamptz[]',
          ),
        )}),`
      : '';
    // The segment rollups' part: the totals' columns, and the cells of the `sessions` documents.
    const folded: string[] = [];
    if (plan && dimensions.includes(SESSION_DIMENSIONS.segment))
      folded.push(segmentTotalSums(plan, funnel, filter, params, SESSION_DIMENSIONS.segment));
    const documented = dimensions.filter(inSessionsDocument);
    if (plan && documented.length)
      folded.push(segmentSessionSums(plan, funnel, filter, params, params.bind(documented, 'text[]')));
    const rows: SessionSumRow[] = await this.reads.rows(
      `WITH ${usableCte} m AS (
         ${raw.grouped ? `SELECT ${raw.grouped.columns} FROM (${edges}) AS m GROUP BY ${raw.grouped.by}` : edges}
       )
       SELECT t.dimension, t.key, sum(t.sessions) AS sessions, sum(t.conversions) AS conversions,
              sum(t.completions) AS completions, sum(t.completion_ms) AS completion_ms
       FROM (
         SELECT r.dimension, r.key, s.sign * r.sessions AS sessions, s.sign * r.conversions AS conversions,
                s.sign * r.completions AS completions, s.sign * r.completion_ms AS completion_ms
         FROM ${segmentRows(inSegments, 'metric_session_rollups', funnel, `= ANY(${wanted})`, '*', usable)}
         UNION ALL
         ${raw.sql}
         ${folded.map((sql) => `UNION ALL ${sql}`).join(' ')}
       ) AS t
       GROUP BY t.dimension, t.key`,
      params.values,
    );
    const result = new Map<string, Sums<SessionCounts>>(dimensions.map((d) => [d, new Map()]));
    for (const r of rows) {
      const sessions = Number(r.sessions);
      // A key whose sessions all lie in a subtracted part of a bucket nets to zero.
      if (!sessions) continue;
      result.get(r.dimension)?.set(r.key, {
        sessions,
        conversions: Number(r.conversions),
        completions: Number(r.completions),
        completionMs: Number(r.completion_ms),
      });
    }
    return result;
  }

  /**
   * The counters of a dimension counted from events (e.g. page views per page, clicks per button)
   * per key, at the events' own time in the window; with a filter, of the events of the sessions
   * it matches, read from the events themselves.
   */
  async events(
    funnelId: string,
    window: MetricWindow,
    dimension: CountedDimensionName,
    filter: SessionFilter = {},
  ): Promise<Sums<EventCounts>> {
    if (!isFiltered(filter)) return this.eventSums(funnelId, window, dimension, filter);
    return this.planned(
      funnelId,
      window,
      SEGMENT_GRAINS,
      (plan) => this.eventSums(funnelId, window, dimension, filter, plan),
      labelCover(dimension),
    );
  }

  private async eventSums(
    funnelId: string,
    window: MetricWindow,
    dimension: CountedDimensionName,
    filter: SessionFilter,
    plan?: SegmentPlan,
  ): Promise<Sums<EventCounts>> {
    const declared = countedDimension(dimension);
    const filtered = isFiltered(filter);
    const cover = plan
      ? { segments: [], raw: plan.raw, finest: FINEST_SEGMENT_GRAIN }
      : signedCover(window.from, window.to + 1, EVENT_GRAINS, labelCover(dimension));
    const params = new SqlParams();
    const funnel = params.bind(funnelId);
    const inSegments = segments(cover, params);
    const wanted = params.bind(dimension);
    const eventType = params.bind(declared.type);
    const sessions = filtered ? sessionJoinSql(funnel, filter, params) : '';
    const rawScans = pieceScans(cover.raw, params, rawEvents(declared, funnel, eventType, sessions));
    // The latest labelled event of a key `k.key` in [k.inside_lo, k.inside_hi): an index scan
    // backwards from that end, which stops at the first match.
    const latestLabel = (k: string) =>
      `SELECT e.button_label, e.occurred_at FROM metric_events e ${sessions}
       WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.occurred_at >= ${k}.inside_lo AND e.occurred_at < ${k}.inside_hi
         AND e.key = ${k}.key AND e.button_label IS NOT NULL
       ORDER BY e.occurred_at DESC, e.button_label COLLATE "C" DESC LIMIT 1`;
    const partial = plan && declared.labelled ? partialLabelKeys(plan, funnel, filter, params, wanted) : null;
    // The latest label of the window: the latest of the buckets' latest labels, where a bucket's
    // label counts only when it lies inside the window. A bucket read whole whose latest label lies
    // after the window's end (`inside_hi`) falls back to the latest labelled click inside it: an
    // index scan backwards from that end, which stops at the first match. Raw rows: rawEvents.
    const rows: EventRow[] = await this.reads.rows(
      `WITH r AS (
         SELECT r.key, s.sign * r.events AS events, s.sign * r.timed AS timed, s.sign * r.total_ms AS total_ms,
                r.label, r.label_at, s.inside_lo, s.inside_hi, s.sign
         FROM ${segmentRows(inSegments, 'metric_event_rollups', funnel, `= ${wanted}`)}
       )
       SELECT r.key, sum(r.events) AS events, sum(r.timed) AS timed, sum(r.total_ms) AS total_ms,
              (array_agg(r.label ORDER BY r.label_at DESC, r.label COLLATE "C" DESC)
                FILTER (WHERE r.label_at >= r.inside_lo AND r.label_at < r.inside_hi))[1] AS label,
              max(r.label_at) FILTER (WHERE r.label_at >= r.inside_lo AND r.label_at < r.inside_hi) AS label_at
       FROM r GROUP BY r.key
       UNION ALL
       SELECT r.key, 0, 0, 0, l.button_label, l.occurred_at
       FROM r CROSS JOIN LATERAL (${latestLabel('r')}) AS l
       WHERE r.label_at >= r.inside_hi AND r.sign > 0
       UNION ALL
       SELECT raw.key, raw.events, raw.timed, raw.total_ms,
              -- The label of the latest labelled click: one probe of the key at that time.
              (SELECT max(x.button_label COLLATE "C") FROM metric_events x
               ${filtered ? sessionJoinSql(funnel, filter, params, 'JOIN', 'x') : ''}
               WHERE x.funnel_id = ${funnel} AND x.type = ${eventType} AND x.occurred_at = raw.label_at AND x.key = raw.key
                 AND x.button_label IS NOT NULL),
              raw.label_at
       FROM (
         SELECT e.key, sum(e.sign) AS events, sum(e.sign) FILTER (WHERE e.time_on_page_ms IS NOT NULL) AS timed,
                coalesce(sum(e.sign * e.time_on_page_ms), 0) AS total_ms,
                max(e.occurred_at) FILTER (WHERE e.button_label IS NOT NULL AND e.sign > 0) AS label_at
         FROM (${rawScans}) AS e
         GROUP BY e.key
       ) AS raw
       ${plan ? `UNION ALL ${segmentEventSums(plan, funnel, filter, params, wanted)}` : ''}
       ${partial ? `UNION ALL SELECT p.key, 0, 0, 0, l.button_label, l.occurred_at FROM ${partial} CROSS JOIN LATERAL (${latestLabel('p')}) AS l` : ''}`,
      params.values,
    );
    const sums: Sums<EventCounts> = new Map();
    for (const r of rows) {
      const total = sums.get(r.key) ?? emptyEvents();
      total.events += Number(r.events);
      total.timed += Number(r.timed ?? 0);
      total.totalMs += Number(r.total_ms);
      laterLabel(total, r.label, r.label_at?.getTime() ?? null);
      sums.set(r.key, total);
    }
    // A key whose events all lie in a subtracted part of a bucket nets to zero.
    for (const [key, c] of sums) if (!c.events) sums.delete(key);
    return sums;
  }

  /** Messages sent in the window that were delivered (or opened) and opened, by send time. */
  async messages(
    funnelId: string,
    window: MetricWindow,
    dimension: MessageDimensionName = 'message',
  ): Promise<{ delivered: number; opened: number }> {
    // Sent messages are counted per contact, not per event: no subtraction needed at this volume.
    const cover = coverWindow(window.from, window.to + 1, EVENT_GRAINS);
    const params = new SqlParams();
    const funnel = params.bind(funnelId);
    const inSegments = segments(cover, params);
    const wanted = params.bind(dimension);
    const [row]: { delivered: string; opened: string }[] = await this.reads.rows(
      `WITH r AS (
         SELECT r.key, r.events FROM ${segmentRows(inSegments, 'metric_event_rollups', funnel, `= ${wanted}`, 'r.key, r.events')}
       ), m AS (
         ${pieceScans(cover.raw, params, rawMessages(funnel))}
       )
       SELECT (SELECT coalesce(sum(r.events) FILTER (WHERE r.key = '${MESSAGE_KEYS.delivered}'), 0) FROM r) +
              (SELECT count(*) FILTER (WHERE m.delivered_at IS NOT NULL OR m.opened_at IS NOT NULL) FROM m) AS delivered,
              (SELECT coalesce(sum(r.events) FILTER (WHERE r.key = '${MESSAGE_KEYS.opened}'), 0) FROM r) +
              (SELECT count(*) FILTER (WHERE m.opened_at IS NOT NULL) FROM m) AS opened`,
      params.values,
    );
    return { delivered: Number(row.delivered), opened: Number(row.opened) };
  }

  /** The events of a dimension (page views: `activity`) per local weekday-hour slot (0..167). */
  async activity(
    funnelId: string,
    window: MetricWindow,
    dimension: CountedDimensionName = 'activity',
    filter: SessionFilter = {},
  ): Promise<number[]> {
    const declared = countedDimension(dimension);
    if (isFiltered(filter)) return this.filteredActivity(funnelId, window, dimension, filter);
    // A bucket must not straddle a local hour: whole hours only when every offset of the window
    // and every change between them is whole hours, etc. (a zone's offset changes with its rules).
    const periods = window.zone.periods(window.from, window.to);
    const grains = EVENT_GRAINS.filter((g) => fitsLocalHours(g, periods));
    const cover = signedCover(window.from, window.to + 1, grains);
    // A raw piece lies within one finest bucket, hence within one local hour: its minute gives the
    // slot, and its events are counted where they are (one row per piece).
    const params = new SqlParams();
    const funnel = params.bind(funnelId);
    const inSegments = segments(cover, params);
    const wanted = params.bind(dimension);
    const offsetAt = offsetAtSql(periods, params);
    // Local hours since the epoch of a time given in minutes since the epoch.
    const localHour = (minutes: string) => `(${minutes} - ${offsetAt(minutes)}) / 60`;
    const rows: { slot: number; events: string }[] = await this.reads.rows(
      `SELECT ${SLOT} AS slot, sum(b.events) AS events
       FROM (
         SELECT ${localHour('extract(epoch FROM r.bucket)::bigint / 60')} AS h, s.sign * r.events AS events
         FROM ${segmentRows(inSegments, 'metric_event_rollups', funnel, `= ${wanted}`, 'r.bucket, r.events, r.grain')}
         UNION ALL
         ${pieceScans(
           cover.raw,
           params,
           rawEventCount(declared, funnel, (lo) => localHour(minuteOf(lo))),
         )}
       ) AS b
       GROUP BY 1`,
      params.values,
    );
    const slots = new Array<number>(SLOTS).fill(0);
    for (const r of rows) slots[Number(r.slot)] += Number(r.events);
    return slots;
  }

  /**
   * Page views of the sessions the filter matches per local weekday-hour slot: whole buckets of
   * the segment rollups that fit local hours, and each raw event's own minute for the rest.
   */
  private async filteredActivity(
    funnelId: string,
    window: MetricWindow,
    dimension: CountedDimensionName,
    filter: SessionFilter,
  ): Promise<number[]> {
    const { type } = countedDimension(dimension);
    const periods = window.zone.periods(window.from, window.to);
    const grains = SEGMENT_GRAINS.filter((g) => fitsLocalHours(g, periods));
    return this.planned(funnelId, window, grains, async (plan) => {
      const params = new SqlParams();
      const funnel = params.bind(funnelId);
      const offsetAt = offsetAtSql(periods, params);
      const localHour = (minutes: string) => `(${minutes} - ${offsetAt(minutes)}) / 60`;
      const minute = minuteOf('e.occurred_at');
      const eventType = params.bind(type);
      const join = sessionJoinSql(funnel, filter, params);
      const rows: { slot: number; events: string }[] = await this.reads.rows(
        `SELECT ${SLOT} AS slot, sum(b.events) AS events
         FROM (
           SELECT ${localHour('extract(epoch FROM r.bucket)::bigint / 60')} AS h,
                  s.sign * (r.events -> ${params.bind(dimension)} -> '' ->> 0)::bigint AS events
           FROM ${segmentRollupRows(plan, funnel, filter, params, 'r.bucket, r.events')}
           UNION ALL
           SELECT ${localHour(minute)} AS h, e.sign AS events
           FROM (${pieceScans(
             plan.raw,
             params,
             (lo, hi, sign) => `SELECT ${sign} AS sign, e.occurred_at FROM metric_events e ${join}
               WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.occurred_at >= ${lo} AND e.occurred_at < ${hi}`,
           )}) AS e
         ) AS b
         WHERE b.events IS NOT NULL
         GROUP BY 1`,
        params.values,
      );
      const slots = new Array<number>(SLOTS).fill(0);
      for (const r of rows) slots[Number(r.slot)] += Number(r.events);
      return slots;
    });
  }

  /**
   * Page views in the window that reported a time on page, and its sum, per value of a session
   * attribute (null: the session has none, or has not started) over the events of the sessions
   * the filter matches (every event when there is none): the segment rollups' page cells per
   * value of the attribute's column, and the raw events of the rest.
   */
  async timedPageViewsBy(
    funnelId: string,
    window: MetricWindow,
    by: FilterName,
    filter: SessionFilter,
  ): Promise<Map<string | null, { timed: number; totalMs: number }>> {
    const { type } = countedDimension('page');
    const column = START_ATTRIBUTES[by].column;
    return this.planned(funnelId, window, SEGMENT_GRAINS, async (plan) => {
      const params = new SqlParams();
      const funnel = params.bind(funnelId);
      const eventType = params.bind(type);
      const join = sessionJoinSql(funnel, filter, params, isFiltered(filter) ? 'JOIN' : 'LEFT JOIN');
      const rows: { key: string | null; timed: string; total_ms: string }[] = await this.reads.rows(
        `SELECT t.key, sum(t.timed) AS timed, sum(t.total_ms) AS total_ms
         FROM (
           SELECT k.segment_key AS key, k.sign * (k.value ->> 1)::bigint AS timed, k.sign * (k.value ->> 2)::bigint AS total_ms
           FROM ${cellsOf(
             segmentRollupRows(plan, funnel, filter, params, `r.${column}, r.events`),
             `r.events -> ${params.bind('page')}`,
             [
               [`r.${column}`, 'segment_key'],
               ['s.sign', 'sign'],
             ],
           )}
           UNION ALL
           SELECT e.key, e.sign, e.sign * e.time_on_page_ms
           FROM (${pieceScans(
             plan.raw,
             params,
             (
               lo,
               hi,
               sign,
             ) => `SELECT ${sign} AS sign, m.${column} AS key, e.time_on_page_ms FROM metric_events e ${join}
               WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.time_on_page_ms IS NOT NULL
                 AND e.occurred_at >= ${lo} AND e.occurred_at < ${hi}`,
           )}) AS e
         ) AS t
         GROUP BY 1`,
        params.values,
      );
      return new Map(
        rows
          .filter((r) => Number(r.timed))
          .map((r) => [r.key, { timed: Number(r.timed), totalMs: Number(r.total_ms) }]),
      );
    });
  }
}
