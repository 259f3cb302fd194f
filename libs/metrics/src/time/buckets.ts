export const SECOND_MS = 1_000;
export const MINUTE_MS = 60_000;

/**
 * Rollup resolutions in seconds, coarsest first, each a multiple of the next: a day, an hour, a
 * quarter hour, a minute and, for events, ten seconds. A window is read from the coarsest buckets
 * that fit inside it and raw rows for the rest of its edges (see time-cover.ts); the quarter hour
 * keeps charts of time zones such as UTC+5:45 from reading minute rows.
 *
 * Page views and clicks keep ten-second buckets: at high traffic their raw rows are the densest,
 * and their rollup rows are few and cheap to write, so an edge reads at most five seconds of them.
 * Session rows stop at the minute: a session adds a rollup row per page, device, source and
 * answer, and ten-second rows would cost ingestion a sixth of its throughput. An edge of a session
 * figure reads at most half a minute of sessions, summed where they are (rollups/raw-sessions.ts).
 */
export const EVENT_GRAINS = [86_400, 3_600, 900, 60, 10] as const;
export const SESSION_GRAINS = [86_400, 3_600, 900, 60] as const;
/**
 * The folded segment rollups' resolutions (segments/segment-folder.ts): the session grains and five
 * minutes. A filtered read sums one row per segment in use in each bucket it reads, and a busy
 * funnel's minutes hold many more segments than a quiet one's, so the five-minute rows keep the
 * minutes an edge reads few. What is left at an edge, at most half a minute, is read raw, each page
 * view or click probing its session for the filter. The fold job writes them, not ingestion.
 */
export const SEGMENT_GRAINS = [86_400, 3_600, 900, 300, 60] as const;
/** The finest segment grain, the minute: the fold computes its rows from raw rows, the coarser ones from finer rows. */
export const FINEST_SEGMENT_GRAIN = SEGMENT_GRAINS[SEGMENT_GRAINS.length - 1];

/** Start (epoch ms, UTC) of the bucket of the given grain (seconds) that holds `ms`. */
export const bucketStart = (ms: number, grain: number): number => {
  const size = grain * SECOND_MS;
  return Math.floor(ms / size) * size;
};
