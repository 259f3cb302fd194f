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
import { CountedDimensionName, countedDimension, MessageDimensionName } from '../events/event-definitions';
import { inSegmentRollups } from '../segments/segment-rows';
import { SegmentPlan, SegmentPlanner } from '../segments/segment-state';
import { SLOTS } from '../time/local-time';
import type { Cover, CoverOptions } from '../time/time-cover';
import { activitySql, eventSumsSql, messagesSql } from './event-sums-sql';
import {
  activityPlan,
  eventsPlan,
  FILTERED_GRAINS,
  labelCover,
  localHourGrains,
  messagesPlan,
  periodsOf,
  rawPartOf,
  sessionsPlan,
} from './read-plans';
import { filteredActivitySql, timedPageViewsSql } from './filtered-event-sql';
import { sessionSumsSql } from './session-sums-sql';
import { EventCounts, laterLabel, SessionCounts } from './rollup-deltas';

type Sums<C> = Map<string, C>;

const emptyEvents = (): EventCounts => ({ events: 0, timed: 0, totalMs: 0, label: null, labelAt: null });

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
   * and at most half a minute of sessions raw at each edge.
   */
  private rolledSessions(
    funnelId: string,
    window: MetricWindow,
    dimensions: string[],
  ): Promise<Map<string, Sums<SessionCounts>>> {
    return this.sessionSums(funnelId, dimensions, {}, sessionsPlan(window));
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
    return this.planned(funnelId, window, FILTERED_GRAINS, (plan) =>
      this.sessionSums(funnelId, dimensions, filter, rawPartOf(plan), plan),
    );
  }

  /**
   * Session counters per dimension and key: the session rollups' buckets of `cover` and its raw
   * pieces; with `plan`, also the segment rollups' whole buckets.
   */
  private async sessionSums(
    funnelId: string,
    dimensions: string[],
    filter: SessionFilter,
    cover: Cover,
    plan?: SegmentPlan,
  ): Promise<Map<string, Sums<SessionCounts>>> {
    const { text, values } = sessionSumsSql(funnelId, dimensions, filter, cover, plan);
    const rows: SessionSumRow[] = await this.reads.rows(text, values);
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
    if (!isFiltered(filter))
      return this.eventSums(funnelId, eventsPlan(window, dimension), dimension, filter);
    return this.planned(
      funnelId,
      window,
      FILTERED_GRAINS,
      (plan) => this.eventSums(funnelId, rawPartOf(plan), dimension, filter, plan),
      labelCover(dimension),
    );
  }

  private async eventSums(
    funnelId: string,
    cover: Cover,
    dimension: CountedDimensionName,
    filter: SessionFilter,
    plan?: SegmentPlan,
  ): Promise<Sums<EventCounts>> {
    const { text, values } = eventSumsSql(funnelId, cover, dimension, filter, plan);
    const rows: EventRow[] = await this.reads.rows(text, values);
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
    const { text, values } = messagesSql(funnelId, messagesPlan(window), dimension);
    const [row]: { delivered: string; opened: string }[] = await this.reads.rows(text, values);
    return { delivered: Number(row.delivered), opened: Number(row.opened) };
  }

  /** The events of a dimension (page views: `activity`) per local weekday-hour slot (0..167). */
  async activity(
    funnelId: string,
    window: MetricWindow,
    dimension: CountedDimensionName = 'activity',
    filter: SessionFilter = {},
  ): Promise<number[]> {
    if (isFiltered(filter)) return this.filteredActivity(funnelId, window, dimension, filter);
    const periods = periodsOf(window);
    const { text, values } = activitySql(funnelId, activityPlan(window, periods), periods, dimension);
    const rows: { slot: number; events: string }[] = await this.reads.rows(text, values);
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
    const periods = periodsOf(window);
    return this.planned(funnelId, window, localHourGrains(FILTERED_GRAINS, periods), async (plan) => {
      const { text, values } = filteredActivitySql(plan, funnelId, periods, dimension, type, filter);
      const rows: { slot: number; events: string }[] = await this.reads.rows(text, values);
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
    return this.planned(funnelId, window, FILTERED_GRAINS, async (plan) => {
      const { text, values } = timedPageViewsSql(plan, funnelId, type, column, filter);
      const rows: { key: string | null; timed: string; total_ms: string }[] = await this.reads.rows(
        text,
        values,
      );
      return new Map(
        rows
          .filter((r) => Number(r.timed))
          .map((r) => [r.key, { timed: Number(r.timed), totalMs: Number(r.total_ms) }]),
      );
    });
  }
}
