import { ValidationError } from '@app/core';
import { DAY_MS, MINUTE_MS } from '../time/buckets';
import { MetricQuery, parseZone } from './metric-query';

/** Named periods: the last N local days of the caller's time zone, today included. */
export const PERIOD_PRESETS = {
  today: 1,
  last_7_days: 7,
  last_30_days: 30,
  last_90_days: 90,
} as const;
export type PeriodPreset = keyof typeof PERIOD_PRESETS;
export const PERIOD_PRESET_NAMES = Object.keys(PERIOD_PRESETS) as [PeriodPreset, ...PeriodPreset[]];

/**
 * The local dates a preset stands for at `now`, in the zone of `query` (`timezone` or `offset`,
 * validated as every metric read does): `from` and `to` as dates, which every metric read takes as
 * the start of the first day and the end of the last.
 */
export function presetPeriod(
  preset: PeriodPreset,
  query: Pick<MetricQuery, 'offset' | 'timezone'>,
  now: number,
): { from: string; to: string } {
  const problems: string[] = [];
  const zone = parseZone(query, problems);
  if (problems.length) throw new ValidationError(problems[0], problems);
  // Local time = UTC − offset; as a UTC date, it is the local calendar day.
  const today = now - zone.offsetAt(now) * MINUTE_MS;
  const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { from: date(today - (PERIOD_PRESETS[preset] - 1) * DAY_MS), to: date(today) };
}
