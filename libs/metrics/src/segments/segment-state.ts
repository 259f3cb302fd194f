import type { SnapshotRows } from '@app/core';
import { millis } from '../sql/epoch';
import { MARK_EPOCH_MS, MARK_KEY_SQL } from '../steps/step-marks';
import { MINUTE_MS } from '../time/buckets';
import { CoverOptions, RawPiece, Segment, signedCover } from '../time/time-cover';
import type { Range } from '../time/time-cover';

/**
 * The minutes (epoch ms, as float8 `minute`) a recorded change `c` (a metric_segment_changes row)
 * names: its minute, or every minute of its session's step marks (page views and clicks among
 * them), read from metric_session_steps by key.
 */
export const staleMinutesSql = (funnel: string, c: string) =>
  `SELECT (floor(extract(epoch FROM ${c}.minute) / 60) * ${MINUTE_MS})::float8 AS minute WHERE ${c}.minute IS NOT NULL
   UNION
   SELECT (((mk % ${MARK_KEY_SQL}) + ${MARK_EPOCH_MS}) / ${MINUTE_MS} * ${MINUTE_MS})::float8
   FROM metric_session_steps st CROSS JOIN unnest(st.marks) AS mk
   WHERE ${c}.session_id IS NOT NULL AND st.funnel_id = ${funnel} AND st.session_id = ${c}.session_id`;

/** A funnel's fold state for planning ($1 the funnel): `folded_to`, the stale minutes. */
export const FOLD_STATE_SQL = `SELECT ${millis('f.folded_to')} AS folded_to,
              ARRAY(SELECT DISTINCT x.minute FROM metric_segment_changes c CROSS JOIN LATERAL (${staleMinutesSql('$1', 'c')}) AS x
                    WHERE c.funnel_id = $1 AND x.minute < ${millis('f.folded_to')}) AS stale
       FROM metric_segment_folds f WHERE f.funnel_id = $1`;

/** A window split into the segment rollups' whole buckets and the raw pieces around them. */
export interface SegmentPlan {
  segments: Segment[];
  raw: RawPiece[];
}

/** What of a funnel is folded: rollups before `foldedTo` except the stale minutes. */
interface FoldState {
  foldedTo: number | null;
  stale: Set<number>;
}

/**
 * The plan of a read of [from, to) over `grains` (seconds, coarsest first, of SEGMENT_GRAINS):
 * the funnel's fold state read with `rows`, in the snapshot the read then runs in, so the plan
 * holds for it whatever the folder and ingestion commit meanwhile (see planWindow).
 */
export async function planRead(
  rows: SnapshotRows,
  funnelId: string,
  from: number,
  to: number,
  grains: readonly number[],
  options: Pick<CoverOptions, 'coarseOutside'> = {},
): Promise<SegmentPlan> {
  const [row] = await rows<{ folded_to: number | null; stale: number[] | null }>(FOLD_STATE_SQL, [funnelId]);
  const foldedTo = row?.folded_to == null ? null : Number(row.folded_to);
  const stale = new Set((row?.stale ?? []).map(Number));
  return planWindow({ foldedTo, stale }, from, to, grains, options);
}

/**
 * Splits [from, to) into whole buckets of the folded minutes that no pending change names, and raw
 * pieces for the rest: the minutes past `foldedTo`, the stale minutes and the edges. Each part
 * between them is covered by signedCover, whose buckets (counted or subtracted, inside the part or
 * reaching past it) all hold clean folded minutes only.
 */
export function planWindow(
  { foldedTo, stale }: FoldState,
  from: number,
  to: number,
  grains: readonly number[],
  options: Pick<CoverOptions, 'coarseOutside'> = {},
): SegmentPlan {
  const segments: Segment[] = [];
  const raw: RawPiece[] = [];
  const folded = foldedTo ?? -Infinity;
  const staleMinutes = [...stale].sort((a, b) => a - b);
  const usable = (b: Range & { grain: number }) =>
    b.to <= folded && !staleMinutes.some((m) => m < b.to && m + MINUTE_MS > b.from);
  // The folded part of the window, split at its stale minutes.
  const end = Math.max(from, Math.min(to, folded));
  let lo = from;
  const cut = (hi: number) => {
    if (lo >= hi) return;
    const cover = signedCover(lo, hi, grains, { ...options, usable });
    segments.push(...cover.segments);
    raw.push(...cover.raw);
  };
  for (const minute of staleMinutes) {
    if (minute + MINUTE_MS <= lo || minute >= end) continue;
    cut(minute);
    raw.push({ from: Math.max(lo, minute), to: Math.min(end, minute + MINUTE_MS), sign: 1 });
    lo = minute + MINUTE_MS;
  }
  cut(end);
  if (end < to) raw.push({ from: end, to, sign: 1 });
  return { segments, raw: mergePieces(raw) };
}

/** Adjacent counted pieces joined: fewer scans for a run of stale minutes. */
function mergePieces(pieces: RawPiece[]): RawPiece[] {
  const counted = pieces.filter((p) => p.sign > 0).sort((a, b) => a.from - b.from);
  const merged: RawPiece[] = [];
  for (const p of counted) {
    const last = merged[merged.length - 1];
    if (last && last.to === p.from) last.to = p.to;
    else merged.push({ ...p });
  }
  return [...merged, ...pieces.filter((p) => p.sign < 0)];
}
