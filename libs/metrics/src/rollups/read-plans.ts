import { EVENT_DIMENSION_TABLE } from '../events/event-definitions';
import type { CountedDimensionName } from '../events/event-definitions';
import type { MetricWindow } from '../query/metric-query';
import type { CoverOptions } from '../time/time-cover';
import type { OffsetPeriod } from '../time/time-zone';
import { fitsLocalHours } from '../time/zone-sql';

// The planning step of a read that depends on the window alone: which grains and how the cover may
// reach past the window. What is folded (planRead, planWindow) is read from the database.

/**
 * A latest label cannot be subtracted, and a coarse bucket's may lie outside the window, where
 * finding the latest inside would scan the bucket's raw rows: a labelled dimension (clicks) reaches
 * past the window's edges with its finest buckets only (signedCover).
 */
export const labelCover = (dimension: CountedDimensionName): Pick<CoverOptions, 'coarseOutside'> => ({
  coarseOutside: !('labelled' in EVENT_DIMENSION_TABLE[dimension]),
});

/** The UTC offsets in force over a window, in its time zone. */
export const periodsOf = (window: MetricWindow): OffsetPeriod[] =>
  window.zone.periods(window.from, window.to);

/**
 * The grains a read per local hour may take: a bucket must not straddle a local hour, so whole
 * hours only when every offset of the window and every change between them is whole hours, etc.
 */
export const localHourGrains = (grains: readonly number[], periods: OffsetPeriod[]): number[] =>
  grains.filter((g) => fitsLocalHours(g, periods));
