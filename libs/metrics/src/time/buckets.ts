export const MINUTE_MS = 60_000;

/**
 * Rollup resolutions in minutes, coarsest first: a day, an hour, a quarter hour, a minute. A
 * window is read from the coarsest buckets that fit inside it (see time-cover.ts); the quarter
 * hour keeps charts of time zones such as UTC+5:45 from reading minute rows.
 */
export const GRAINS = [1440, 60, 15, 1] as const;
export type Grain = (typeof GRAINS)[number];

/** Start (epoch ms, UTC) of the bucket of the given grain that holds `ms`. */
export const bucketStart = (ms: number, grain: number): number => {
  const size = grain * MINUTE_MS;
  return Math.floor(ms / size) * size;
};
