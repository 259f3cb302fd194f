import { iso } from '../sql/epoch';
import type { SqlParams } from '../sql/sql-params';
import type { Cover, RawPiece, Segment } from '../time/time-cover';

// The rows of a window's cover are summed in one statement, in the snapshot its plan was made in
// (planRead reads what is folded in the same transaction, so the plan holds for them). Whole
// buckets come from the rollups (segments: grain, start, end and sign, −1 for a bucket
// subtracted), the edges shorter than a finest bucket from raw rows (see pieceScans). Each piece is
// one index range scan, so neither grows with the number of events in the window. Segments are
// joined LATERAL with OFFSET 0, which keeps the subquery from being flattened: the planner cannot
// hash a whole funnel's rows instead of scanning a few ranges.
export const segments = (cover: Cover, params: SqlParams) => {
  const list = <T>(pick: (s: Segment) => T, type: string) => params.bind(cover.segments.map(pick), type);
  return `unnest(${list((s) => s.grain, 'int[]')}, ${list((s) => iso(s.from), 'timestamptz[]')}, ${list(
    (s) => iso(s.to),
    'timestamptz[]',
  )}, ${list((s) => s.sign, 'int[]')}) AS s(grain, lo, hi, sign)`;
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
