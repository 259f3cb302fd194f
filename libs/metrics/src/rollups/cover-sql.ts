import { iso } from '../sql/epoch';
import type { SqlParams } from '../sql/sql-params';
import type { Cover, RawPiece, Segment } from '../time/time-cover';

// The rows of a window's cover are summed in one statement, in the snapshot its plan was made in
// (planRead reads what is folded in the same transaction, so the plan holds for them). Whole
// buckets come from the rollups (segments: grain, start, end, and the part of the bucket inside the
// window, the sign: −1 for a bucket subtracted), the edges shorter than a finest bucket from raw
// rows (see pieceScans). Each piece is
// one index range scan, so neither grows with the number of events in the window. Segments are
// joined LATERAL with OFFSET 0, which keeps the subquery from being flattened: the planner cannot
// hash a whole funnel's rows instead of scanning a few ranges.
export const segments = (cover: Cover, params: SqlParams) => {
  // A subtracted bucket holds nothing inside the window: an empty part, where no label lies.
  const inside = (s: Segment) => (s.sign < 0 ? { from: s.from, to: s.from } : (s.within ?? s));
  const times = (pick: (s: Segment) => number) =>
    params.bind(
      cover.segments.map((s) => iso(pick(s))),
      'timestamptz[]',
    );
  return `unnest(${params.bind(
    cover.segments.map((s) => s.grain),
    'int[]',
  )}, ${times((s) => s.from)}, ${times((s) => s.to)}, ${times((s) => inside(s).from)}, ${times((s) => inside(s).to)}, ${params.bind(
    cover.segments.map((s) => s.sign),
    'int[]',
  )}) AS s(grain, lo, hi, inside_lo, inside_hi, sign)`;
};
export const IN_SEGMENT = `r.grain = s.grain AND r.bucket >= s.lo AND r.bucket < s.hi`;

/**
 * The raw rows of a cover's edge pieces: `scan` of each piece (its bounds and sign as SQL), joined
 * by UNION ALL. The bounds are bound as parameters, so the planner
 * estimates each range from the column's statistics and prunes event partitions while planning.
 * Bounds read from an array row by row are unknown to it: it assumed a fixed share of the
 * funnel's rows (63,528 sessions for a 30-second edge that held 390, at 100 M events), a guess
 * that grows with the funnel however short the edge. With no piece, one empty range keeps the
 * relation's columns.
 */
export function pieceScans(
  pieces: RawPiece[],
  params: SqlParams,
  scan: (lo: string, hi: string, sign: number) => string,
): string {
  const ranges: RawPiece[] = pieces.length ? pieces : [{ from: 0, to: 0, sign: 1 }];
  return ranges
    .map((piece) =>
      scan(
        params.bind(iso(piece.from), 'timestamptz'),
        params.bind(iso(piece.to), 'timestamptz'),
        piece.sign,
      ),
    )
    .join('\nUNION ALL\n');
}
