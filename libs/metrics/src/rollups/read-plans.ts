import { countedDimension } from '../events/event-definitions';
import type { CountedDimensionName } from '../events/event-definitions';
import type { MetricWindow } from '../query/metric-query';
import type { SegmentPlan } from '../segments/segment-state';
import { EVENT_GRAINS, FINEST_SEGMENT_GRAIN, SEGMENT_GRAINS, SESSION_GRAINS } from '../time/buckets';
import { coverWindow, signedCover } from '../time/time-cover';
import type { Cover, CoverOptions } from '../time/time-cover';
import type { OffsetPeriod } from '../time/time-zone';
import { fitsLocalHours } from '../time/zone-sql';

// The planning step of a read, apart from rendering its SQL: which rollup rows (grains, buckets,
// each added or subtracted) and which raw edges. Pure functions of the window; a filtered read's
// plan also depends on what is folded (SegmentPlanner, planWindow), read from the database first.

/**
 * A latest label cannot be subtracted, and a coarse bucket's may lie outside the window, where
 * finding the latest inside would scan the bucket's raw rows: a labelled dimension (clicks) reaches
 * past the window's edges with its finest buckets only (signedCover).
 */
export const labelCover = (dimension: CountedDimensionName): Pick<CoverOptions, 'coarseOutside'> => ({
  coarseOutside: !countedDimension(dimension).labelled,
});

/** An unfiltered read of sessions: ingestion's session grains, at most half a minute raw per edge. */
export const sessionsPlan = (window: MetricWindow): Cover =>
  signedCover(window.from, window.to + 1, SESSION_GRAINS);

/** An unfiltered read of a dimension counted from events: the event grains, at most five seconds raw per edge. */
export const eventsPlan = (window: MetricWindow, dimension: CountedDimensionName): Cover =>
  signedCover(window.from, window.to + 1, EVENT_GRAINS, labelCover(dimension));

/** The UTC offsets in force over a window, in its time zone. */
export const periodsOf = (window: MetricWindow): OffsetPeriod[] =>
  window.zone.periods(window.from, window.to);

/**
 * The grains a read per local hour may take: a bucket must not straddle a local hour, so whole
 * hours only when every offset of the window and every change between them is whole hours, etc.
 */
export const localHourGrains = (grains: readonly number[], periods: OffsetPeriod[]): number[] =>
  grains.filter((g) => fitsLocalHours(g, periods));

/** An unfiltered read per local weekday-hour: the event grains that fit local hours. */
export const activityPlan = (window: MetricWindow, periods: OffsetPeriod[]): Cover =>
  signedCover(window.from, window.to + 1, localHourGrains(EVENT_GRAINS, periods));

/** Messages: counted per contact, not per event, so added only, with raw rows inside the window. */
export const messagesPlan = (window: MetricWindow): Cover =>
  coverWindow(window.from, window.to + 1, EVENT_GRAINS);

/** The grains of a filtered read: the segment rollups'. */
export const FILTERED_GRAINS = SEGMENT_GRAINS;

/** A filtered read's raw part (its buckets are the segment rollups', read from the plan's segments). */
export const rawPartOf = (plan: SegmentPlan): Cover => ({
  segments: [],
  raw: plan.raw,
  finest: FINEST_SEGMENT_GRAIN,
});
