import { MINUTE_MS } from './buckets';

export interface Segment {
  grain: number;
  /** Bucket starts from `from` (inclusive) to `to` (exclusive), epoch ms. */
  from: number;
  to: number;
  /**
   * Set on a minute read whole although the window holds only this part of it (see
   * shortEdges): the rest of the minute is subtracted by raw pieces of sign −1.
   */
  within?: Range;
}

export interface Range {
  from: number;
  to: number;
}

export interface RawPiece extends Range {
  /** 1: rows counted; −1: rows subtracted from a whole minute. */
  sign: 1 | -1;
}

export interface Cover {
  /** Whole buckets, read from rollups. */
  segments: Segment[];
  /** Pieces shorter than a minute at the edges, read from raw rows; none crosses a minute boundary. */
  raw: RawPiece[];
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
    const raw: RawPiece[] =
      start > from && start < to
        ? [
            { from, to: start, sign: 1 },
            { from: start, to, sign: 1 },
          ]
        : [{ from, to, sign: 1 }];
    return { segments: [], raw: raw.filter((r) => r.from < r.to) };
  }
  const raw: RawPiece[] = [];
  if (from < start) raw.push({ from, to: start, sign: 1 });
  if (end < to) raw.push({ from: end, to, sign: 1 });
  return { segments: decompose(start, end, grains), raw };
}

const HALF_MINUTE_MS = MINUTE_MS / 2;

/**
 * The same sums with at most half a minute of raw rows per edge: a raw piece longer than that is
 * read as its whole minute (a rollup row) less the rest of the minute (raw pieces of sign −1).
 * Raw rows are what grows with traffic density, so this halves the worst case and quarters the
 * average. Only for additive counts: a latest label needs the segment's `within` (see the reader).
 */
export function shortEdges(cover: Cover): Cover {
  const segments = [...cover.segments];
  const raw: RawPiece[] = [];
  for (const piece of cover.raw) {
    if (piece.to - piece.from <= HALF_MINUTE_MS) {
      raw.push(piece);
      continue;
    }
    const minute = floorTo(piece.from, MINUTE_MS);
    segments.push({
      grain: 1,
      from: minute,
      to: minute + MINUTE_MS,
      within: { from: piece.from, to: piece.to },
    });
    if (minute < piece.from) raw.push({ from: minute, to: piece.from, sign: -1 });
    if (piece.to < minute + MINUTE_MS) raw.push({ from: piece.to, to: minute + MINUTE_MS, sign: -1 });
  }
  return { segments, raw };
}
