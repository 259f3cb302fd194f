import { SECOND_MS } from './buckets';

export interface Segment {
  /** Seconds. */
  grain: number;
  /** Bucket starts from `from` (inclusive) to `to` (exclusive), epoch ms. */
  from: number;
  to: number;
  /** 1: rows counted; −1: rows subtracted (buckets outside the window, inside a coarser one counted). */
  sign: 1 | -1;
  /**
   * Set on a bucket counted whole although the window holds only this part of it (see
   * signedCover): the rest of the bucket is subtracted.
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
   * crosses a boundary of that grain, except a window shorter than a bucket read whole raw.
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
  if (!finer.length) return [{ grain, from, to, sign: 1 }];
  const start = ceilTo(from, size);
  const end = floorTo(to, size);
  if (start >= end) return decompose(from, to, finer);
  return [
    ...decompose(from, start, finer),
    { grain, from: start, to: end, sign: 1 },
    ...decompose(end, to, finer),
  ];
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

export interface CoverOptions {
  /**
   * Whether buckets coarser than the finest may reach past the window's edges, the part outside
   * subtracted (default true). Not when a latest label is read: a coarse bucket's latest label may
   * lie in the part outside, and finding the one inside could scan the whole bucket's raw rows.
   */
  coarseOutside?: boolean;
  /** Whether the rollup rows of a range of whole buckets of `grain` may be read (default: all). */
  usable?: (buckets: Range & { grain: number }) => boolean;
}

/** A bucket range (grain in seconds) or, grain null, a raw piece, counted with `sign`. */
interface Part extends RawPiece {
  grain: number | null;
}

/** Raw milliseconds, buckets and milliseconds read outside the window: less is better, in that order. */
type Cost = [rawMs: number, buckets: number, outsideMs: number];

interface Choice {
  cost: Cost;
  parts: Part[];
}

const better = (a: Choice, b: Choice) => {
  for (let i = 0; i < a.cost.length; i++) if (a.cost[i] !== b.cost[i]) return a.cost[i] < b.cost[i];
  return false;
};

/**
 * The same sums over the fewest rows: each edge of the window is reached from the nearest
 * boundary of every grain, from inside or from outside, the part outside subtracted (sign −1).
 * A window from 17:00:30 reads the hour from 17:00 less half a minute of raw rows rather than
 * fourteen minutes, three quarters and half a minute; a window to 16:00 reads its day less eight
 * hours rather than sixteen hours. At most half a finest bucket of raw rows per edge (raw rows are
 * what grows with traffic density), then the fewest buckets, for the fewest rows: a busy funnel's
 * minute holds nearly as many rows (keys, segments) as its hour, and a bucket's rows never exceed
 * the keys in use. Only for additive counts; a bucket read for part of it inside the window names that
 * part (`within`), where a latest label must lie.
 */
export function signedCover(
  from: number,
  to: number,
  grains: readonly number[],
  { coarseOutside = true, usable = () => true }: CoverOptions = {},
): Cover {
  const finest = grains[grains.length - 1];
  if (from >= to) return { segments: [], raw: [], finest };
  const sizes = grains.map((g) => g * SECOND_MS);
  const last = grains.length - 1;
  // The boundaries of grain `i` nearest to `x`; only the inner one where a coarse bucket may not
  // reach outside.
  const nearest = (x: number, i: number, side: -1 | 1): number[] => {
    const down = floorTo(x, sizes[i]);
    const up = ceilTo(x, sizes[i]);
    if (down === up) return [down];
    if (i < last && !coarseOutside) return [side < 0 ? up : down];
    return [down, up];
  };
  const outside = (p: Part) =>
    Math.max(0, Math.min(p.to, from) - p.from) + Math.max(0, p.to - Math.max(p.from, to));
  // The part between `a` and `b` (either order), added when `b` lies beyond `a` in the direction
  // `side` points (−1 towards the window's start), subtracted otherwise; null when it may not be read.
  const between = (a: number, b: number, grain: number | null, side: -1 | 1): Choice | null => {
    if (a === b) return { cost: [0, 0, 0], parts: [] };
    const p: Part = { grain, from: Math.min(a, b), to: Math.max(a, b), sign: (b - a) * side > 0 ? 1 : -1 };
    if (p.grain === null) return { cost: [p.to - p.from, 0, outside(p)], parts: [p] };
    if (!usable({ grain: p.grain, from: p.from, to: p.to })) return null;
    return { cost: [0, (p.to - p.from) / (p.grain * SECOND_MS), outside(p)], parts: [p] };
  };
  const join = (...choices: (Choice | null)[]): Choice | null => {
    const cost: Cost = [0, 0, 0];
    const parts: Part[] = [];
    for (const c of choices) {
      if (!c) return null;
      c.cost.forEach((v, i) => (cost[i] += v));
      parts.push(...c.parts);
    }
    return { cost, parts };
  };
  // The best way from boundary `r` of grain `i` to the edge `x`: through a boundary of each finer
  // grain, raw rows last. Each is asked for again by every coarser boundary: computed once.
  const chains = new Map<string, Choice | null>();
  const chain = (x: number, side: -1 | 1, i: number, r: number): Choice | null => {
    const key = `${side} ${i} ${r}`;
    if (chains.has(key)) return chains.get(key)!;
    let best: Choice | null = null;
    if (i === last) best = between(r, x, null, side);
    else
      for (const next of nearest(x, i + 1, side)) {
        const here = join(between(r, next, grains[i + 1], side), chain(x, side, i + 1, next));
        if (here && (!best || better(here, best))) best = here;
      }
    chains.set(key, best);
    return best;
  };
  let best = between(from, to, null, 1)!;
  grains.forEach((grain, i) => {
    for (const a of nearest(from, i, -1))
      for (const b of nearest(to, i, 1)) {
        if (a > b) continue;
        const whole = join(between(a, b, grain, 1), chain(from, -1, i, a), chain(to, 1, i, b));
        if (whole && better(whole, best)) best = whole;
      }
  });
  return { ...fromParts(best.parts, from, to), finest };
}

/**
 * Segments and raw pieces of the chosen parts. A bucket counted for part of it inside the window
 * is a segment of its own that names that part (`within`).
 */
function fromParts(parts: Part[], from: number, to: number): Omit<Cover, 'finest'> {
  const segments: Segment[] = [];
  const raw: RawPiece[] = [];
  for (const { grain, from: lo, to: hi, sign } of parts) {
    if (grain === null) {
      raw.push({ from: lo, to: hi, sign });
      continue;
    }
    const size = grain * SECOND_MS;
    if (sign < 0 || (from <= lo && hi <= to)) {
      segments.push({ grain, from: lo, to: hi, sign });
      continue;
    }
    // Counted, and reaching past an edge: its first and last buckets may hold part of the window.
    const partial = [...new Set([lo, hi - size])].filter((b) => b < from || b + size > to);
    for (const b of partial)
      segments.push({
        grain,
        from: b,
        to: b + size,
        sign,
        within: { from: Math.max(b, from), to: Math.min(b + size, to) },
      });
    const inner = {
      from: partial.includes(lo) ? lo + size : lo,
      to: partial.includes(hi - size) ? hi - size : hi,
    };
    if (inner.from < inner.to) segments.push({ grain, ...inner, sign });
  }
  return { segments, raw };
}
