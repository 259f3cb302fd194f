import { MINUTE_MS } from './buckets';

export interface Segment {
  grain: number;
  /** Bucket starts from `from` (inclusive) to `to` (exclusive), epoch ms. */
  from: number;
  to: number;
}

export interface Range {
  from: number;
  to: number;
}

export interface Cover {
  /** Whole buckets, read from rollups. */
  segments: Segment[];
  /** Pieces shorter than a minute at the edges, read from raw rows; none crosses a minute boundary. */
  raw: Range[];
}

const floorTo = (ms: number, size: number) => Math.floor(ms / size) * size;
const ceilTo = (ms: number, size: number) => Math.ceil(ms / size) * size;

function decompose(from: number, to: number, grains: readonly number[]): Segment[] {
  if (from >= to) return [];
  const [grain, ...finer] = grains;
  const size = grain * MINUTE_MS;
  if (!finer.length) return [{ grain, from, to }];
  const start = ceilTo(from, size);
  const end = floorTo(to, size);
  if (start >= end) return decompose(from, to, finer);
  return [...decompose(from, start, finer), { grain, from: start, to: end }, ...decompose(end, to, finer)];
}

/**
 * Splits [from, to) into the fewest whole buckets of the given grains (coarsest first, ending with
 * 1 minute) plus sub-minute raw pieces at the edges, so sums over the pieces are exact for any
 * window: a 30-day window reads about 30 days, 46 hours, 6 quarters and 28 minutes of rows.
 */
export function coverWindow(from: number, to: number, grains: readonly number[]): Cover {
  if (grains[grains.length - 1] !== 1) throw new Error('the finest grain must be one minute');
  const start = ceilTo(from, MINUTE_MS);
  const end = floorTo(to, MINUTE_MS);
  if (start >= end) {
    // Less than one whole minute: raw pieces, cut at the minute boundary.
    const raw =
      start > from && start < to
        ? [
            { from, to: start },
            { from: start, to },
          ]
        : [{ from, to }];
    return { segments: [], raw: raw.filter((r) => r.from < r.to) };
  }
  const raw: Range[] = [];
  if (from < start) raw.push({ from, to: start });
  if (end < to) raw.push({ from: end, to });
  return { segments: decompose(start, end, grains), raw };
}
