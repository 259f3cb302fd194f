import { Injectable } from '@nestjs/common';
import { ReadPool } from '@app/core';
import type { MetricWindow, SessionFilter } from '../query/metric-query';
import { SESSION_DIMENSIONS, START_ATTRIBUTES } from '../events/session-definitions';
import type { FilterName } from '../events/session-definitions';
import type { CountedDimensionName } from '../events/event-definitions';
import { planRead, SegmentPlan } from '../segments/segment-state';
import { SLOTS } from '../time/local-time';
import { SEGMENT_GRAINS } from '../time/buckets';
import type { CoverOptions } from '../time/time-cover';
import { activitySql, eventSumsSql, messagesSql, Statement, timedPageViewsSql } from './event-sums-sql';
import { labelCover, localHourGrains, periodsOf } from './read-plans';

import { sessionSumsSql } from './session-sums-sql';
import { EventCounts, laterLabel, SessionCounts } from './counts';

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

/**
 * Reads the segment rollups of a window (the fold's, metrics/segments) and the raw rows of what
 * they do not hold: sums per dimension and key of the sessions a filter matches (every session
 * without one), exact for any from/to and time zone.
 */
@Injectable()
export class RollupReader {
  constructor(private readonly reads: ReadPool) {}

  /**
   * The rows of a statement planned over what is folded: the plan and the statement run in one
   * snapshot (ReadPool.snapshot). The fold commits its rollups, its watermark and the deletion of
   * the changes it folded together, and a batch its raw rows and the changes it records, so the
   * plan holds for the statement whatever either commits meanwhile: the answer is exact.
   */
  private planned<R>(
    funnelId: string,
    window: MetricWindow,
    grains: readonly number[],
    statement: (plan: SegmentPlan) => Statement,
    options: Pick<CoverOptions, 'coarseOutside'> = {},
  ): Promise<R[]> {
    return this.reads.snapshot(async (rows) => {
      const plan = await planRead(rows, funnelId, window.from, window.to + 1, grains, options);
      const { text, values } = statement(plan);
      return rows<R>(text, values);
    });
  }

  /**
   * Session counters per dimension and key (the `segment` totals, pages viewed, answers) of the
   * sessions the filter matches that started in the window.
   */
  async sessions(
    funnelId: string,
    window: MetricWindow,
    dimensions: string[],
    filter: SessionFilter = {},
  ): Promise<Map<string, Sums<SessionCounts>>> {
    const rows = await this.planned<SessionSumRow>(funnelId, window, SEGMENT_GRAINS, (plan) =>
      sessionSumsSql(funnelId, dimensions, filter, plan),
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

  /** The session counters per segment key of the sessions the filter matches that started in the window. */
  async segments(
    funnelId: string,
    window: MetricWindow,
    filter: SessionFilter,
  ): Promise<Sums<SessionCounts>> {
    const sums = await this.sessions(funnelId, window, [SESSION_DIMENSIONS.segment], filter);
    return sums.get(SESSION_DIMENSIONS.segment)!;
  }

  /**
   * The counters of a dimension counted from events (e.g. page views per page, clicks per button)
   * per key, at the events' own time in the window, of the events of the sessions the filter
   * matches (every event without one).
   */
  async events(
    funnelId: string,
    window: MetricWindow,
    dimension: CountedDimensionName,
    filter: SessionFilter = {},
  ): Promise<Sums<EventCounts>> {
    const rows = await this.planned<EventRow>(
      funnelId,
      window,
      SEGMENT_GRAINS,
      (plan) => eventSumsSql(funnelId, plan, dimension, filter),
      labelCover(dimension),
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

  /**
   * Messages sent in the window that were delivered (or opened) and opened, by send time: counted
   * per contact message, not per event, so read where contacts keep them.
   */
  async messages(funnelId: string, window: MetricWindow): Promise<{ delivered: number; opened: number }> {
    const { text, values } = messagesSql(funnelId, window);
    const [row]: { delivered: string; opened: string }[] = await this.reads.rows(text, values);
    return { delivered: Number(row.delivered), opened: Number(row.opened) };
  }

  /**
   * The events of a dimension (page views: `activity`) of the sessions the filter matches per
   * local weekday-hour slot (0..167): whole buckets of the segment rollups that fit local hours,
   * and each raw event's own minute for the rest.
   */
  async activity(
    funnelId: string,
    window: MetricWindow,
    dimension: CountedDimensionName = 'activity',
    filter: SessionFilter = {},
  ): Promise<number[]> {
    const periods = periodsOf(window);
    const rows = await this.planned<{ slot: number; events: string }>(
      funnelId,
      window,
      localHourGrains(SEGMENT_GRAINS, periods),
      (plan) => activitySql(plan, funnelId, periods, dimension, filter),
    );
    const slots = new Array<number>(SLOTS).fill(0);
    for (const r of rows) slots[Number(r.slot)] += Number(r.events);
    return slots;
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
    const column = START_ATTRIBUTES[by].column;
    const rows = await this.planned<{ key: string | null; timed: string; total_ms: string }>(
      funnelId,
      window,
      SEGMENT_GRAINS,
      (plan) => timedPageViewsSql(plan, funnelId, column, filter),
    );
    return new Map(
      rows
        .filter((r) => Number(r.timed))
        .map((r) => [r.key, { timed: Number(r.timed), totalMs: Number(r.total_ms) }]),
    );
  }
}
