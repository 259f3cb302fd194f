import { Injectable } from '@nestjs/common';
import { ReadPool } from '@app/core';
import type { MetricWindow, SessionFilter } from '../query/metric-query';
import { SESSION_DIMENSIONS, START_ATTRIBUTES } from '../events/session-definitions';
import type { FilterName } from '../events/session-definitions';
import type { CountedDimensionName } from '../events/event-definitions';
import { SegmentPlan, SegmentPlanner } from '../segments/segment-state';
import { SLOTS } from '../time/local-time';
import { SEGMENT_GRAINS } from '../time/buckets';
import type { CoverOptions } from '../time/time-cover';
import { activitySql, eventSumsSql, messagesSql, timedPageViewsSql } from './event-sums-sql';
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
  constructor(
    private readonly reads: ReadPool,
    private readonly planner: SegmentPlanner,
  ) {}

  /**
   * A read planned over what is folded, then run; run again when ingestion recorded a change
   * meanwhile. The second change in a row makes the third attempt read every minute raw, in one
   * statement and so one snapshot: the answer is exact however much late traffic keeps arriving.
   * All on one server: a plan from the primary must not meet rollups on a replica behind it.
   */
  private planned<T>(
    funnelId: string,
    window: MetricWindow,
    grains: readonly number[],
    read: (plan: SegmentPlan) => Promise<T>,
    options: Pick<CoverOptions, 'outside'> = {},
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
   * Session counters per dimension and key (the `segment` totals, pages viewed, answers) of the
   * sessions the filter matches that started in the window.
   */
  async sessions(
    funnelId: string,
    window: MetricWindow,
    dimensions: string[],
    filter: SessionFilter = {},
  ): Promise<Map<string, Sums<SessionCounts>>> {
    return this.planned(funnelId, window, SEGMENT_GRAINS, async (plan) => {
      const { text, values } = sessionSumsSql(funnelId, dimensions, filter, plan);
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
    });
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
    return this.planned(
      funnelId,
      window,
      SEGMENT_GRAINS,
      async (plan) => {
        const { text, values } = eventSumsSql(funnelId, plan, dimension, filter);
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
      },
      labelCover(dimension),
    );
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
    return this.planned(funnelId, window, localHourGrains(SEGMENT_GRAINS, periods), async (plan) => {
      const { text, values } = activitySql(plan, funnelId, periods, dimension, filter);
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
    const column = START_ATTRIBUTES[by].column;
    return this.planned(funnelId, window, SEGMENT_GRAINS, async (plan) => {
      const { text, values } = timedPageViewsSql(plan, funnelId, column, filter);
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
