import type { SqlParams } from '../sql/sql-params';
import { MINUTE_MS, SECOND_MS } from './buckets';
import type { OffsetPeriod } from './time-zone';

// Before any time a metric reads, in minutes since the epoch: the first period's lower bound.
const FAR_PAST = -1e12;

/** The periods' offsets, each from its first minute since the epoch (the first from the far past). */
export function offsetsByMinute(periods: OffsetPeriod[]): { sinceMinute: number; offset: number }[] {
  return periods.map((p, i) => ({
    sinceMinute: i === 0 ? FAR_PAST : Math.floor(p.since / MINUTE_MS),
    offset: p.offset,
  }));
}

/**
 * SQL for the offset (getTimezoneOffset minutes) in force at a time given in minutes since the
 * epoch, from the periods of a window (LocalZone.periods). The periods are bound as parameters
 * (bound in `params`): one offset when the window has no change, else the list to look up,
 * a few rows even for a ten-year window.
 */
export function offsetAtSql(periods: OffsetPeriod[], params: SqlParams): (minutes: string) => string {
  if (periods.length === 1) {
    const offset = params.bind(periods[0].offset, 'int');
    return () => offset;
  }
  const minutes = offsetsByMinute(periods);
  const since = params.bind(
    minutes.map((p) => p.sinceMinute),
    'bigint[]',
  );
  const offsets = params.bind(
    minutes.map((p) => p.offset),
    'int[]',
  );
  return (minutes) =>
    `(SELECT z.off FROM unnest(${since}, ${offsets}) AS z(since, off)
      WHERE z.since <= ${minutes} ORDER BY z.since DESC LIMIT 1)`;
}

/**
 * Whether a rollup bucket of `grain` seconds lies within one local hour of every period: the
 * offsets and the instants they change at are whole multiples of it.
 */
export function fitsLocalHours(grain: number, periods: OffsetPeriod[]): boolean {
  return (
    grain <= 3_600 &&
    periods.every((p, i) => (p.offset * 60) % grain === 0 && (i === 0 || (p.since / SECOND_MS) % grain === 0))
  );
}
