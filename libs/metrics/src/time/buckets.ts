export const SECOND_MS = 1_000;
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/**
 * The segment rollups' resolutions in seconds (segments/segment-folder.ts), coarsest first, each a
 * multiple of the next: a day, an hour, a quarter hour, five minutes and a minute. A window is
 * read from the coarsest buckets that fit inside it or reach just past it, and raw rows for the
 * rest of its edges, at most half a minute each (see time-cover.ts). The quarter hour keeps charts
 * of time zones such as UTC+5:45 from reading minute rows; the five minutes keep the minutes an
 * edge reads few, since a busy funnel's minute holds nearly as many segments as its hour.
 */
export const SEGMENT_GRAINS = [86_400, 3_600, 900, 300, 60] as const;
/** The finest segment grain, the minute: the fold computes its rows from raw rows, the coarser ones from finer rows. */
export const FINEST_SEGMENT_GRAIN = SEGMENT_GRAINS[SEGMENT_GRAINS.length - 1];
/**
 * The message rollups' resolutions (metric_event_rollups, dimension `message`), down to ten
 * seconds: messages are counted at their send time, the rest of a window read from the messages.
 */
export const MESSAGE_GRAINS = [86_400, 3_600, 900, 60, 10] as const;

/** Start (epoch ms, UTC) of the bucket of the given grain (seconds) that holds `ms`. */
export const bucketStart = (ms: number, grain: number): number => {
  const size = grain * SECOND_MS;
  return Math.floor(ms / size) * size;
};
