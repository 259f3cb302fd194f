import { SECOND_MS } from './buckets';

export interface Segment {
  /** Seconds. */
  grain: number;
  /** Bucket starts from `from` (inclusive) to `to` (exclusive), epoch ms. */
  from: number;
  to: number;
  /**
   * Set on a finest bucket read whole although the window holds only this part of it (see
   * shortEdges): the rest of the bucket is subtracted by raw pieces of sign −1.
   */
  within?: Range;
}

export interface Range {
  from: number;
  to: number;
}

export interface RawPiece extends Range {
  /** 1: rows counted; −1: rows subtracted from a whole bucket. */
  sign: 1 | -1;
}

export interface Cover {
  /** Whole buckets, read from rollups. */
  segments: Segment[];
  /**
   * Pieces shorter than a bucket of the finest grain at the edges, read from raw rows; none
   * crosses a boundary of that grain.
   */
  raw: RawPiece[];
  /** The finest grain (seconds). */
  finest: number;
}

const floorTo = (ms: number, size: number) => Math.floor(ms / size) * size;
const ceilTo = (ms: number, size: number) => Math.ceil(ms / size) * size;

function decompose(from: number, to: number, grains: readonly number[]): Segment[] {
  if (from >= to) return [];
  const [grain, ...finer] = grains;
  const size = grain * SECOND_MS;
  if (!finer.length) return [{ grain, from, to }];
  const start = ceilTo(from, size);
  const end = floorTo(to, size);
  if (start >= end) return decompose(from, to, finer);
  return [...decompose(from, start, finer), { grain, from: start, to: end }, ...decompose(end, to, finer)];
}

/**
 * Splits [from, to) into the fewest whole buckets of the given grains (seconds, coarsest first,
 * each a multiple of the next) plus raw pieces shorter than the finest grain at the edges, so sums
 * over the pieces are exact for any window: a 30-day window reads about 30 days, 46 hours,
 * 6 quarters, 28 minutes and 10 ten-second buckets of rows.
 */
export function coverWindow(from: number, to: number, grains: readonly number[]): Cover {
  const finest = grains[grains.length - 1];
  const size = finest * SECOND_MS;
  const start = ceilTo(from, size);
  const end = floorTo(to, size);
  if (start >= end) {
    // Less than one whole bucket: raw pieces, cut at the bucket boundary.
    const raw: RawPiece[] =
      start > from && start < to
        ? [
            { from, to: start, sign: 1 },
            { from: start, to, sign: 1 },
          ]
        : [{ from, to, sign: 1 }];
    return { segments: [], raw: raw.filter((r) => r.from < r.to), finest };
  }
  const raw: RawPiece[] = [];
  if (from < start) raw.push({ from, to: start, sign: 1 });
  if (end < to) raw.push({ from: end, to, sign: 1 });
  return { segments: decompose(start, end, grains), raw, finest };
}

/**
 * The same sums with at most half a finest bucket of raw rows per edge: a raw piece longer than
 * that is read as its whole bucket (a rollup row) less the rest of the bucket (raw pieces of
 * sign −1). Raw rows are what grows with traffic density, so this halves the worst case and
 * quarters the average. Only for additive counts: a latest label needs the segment's `within`
 * (see the reader).
 */
export function shortEdges(cover: Cover): Cover {
  const size = cover.finest * SECOND_MS;
  const segments = [...cover.segments];
  const raw: RawPiece[] = [];
  for (const piece of cover.raw) {
    if (piece.to - piece.from <= size / 2) {
      raw.push(piece);
      continue;
    }
    const bucket = floorTo(piece.from, size);
    segments.push({
      grain: cover.finest,
      from: bucket,
      to: bucket + size,
      within: { from: piece.from, to: piece.to },
    });
    if (bucket < piece.from) raw.push({ from: bucket, to: piece.from, sign: -1 });
    if (piece.to < bucket + size) raw.push({ from: piece.to, to: bucket + size, sign: -1 });
  }
  return { segments, raw, finest: cover.finest };
}
