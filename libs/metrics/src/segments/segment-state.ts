import { Injectable } from '@nestjs/common';
import { ReadPool } from '@app/core';
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

/** A funnel's fold state for planning ($1 the funnel): `folded_to`, the last change's `seq`, the stale minutes. */
export const FOLD_STATE_SQL = `SELECT ${millis('f.folded_to')} AS folded_to,
              (SELECT coalesce(max(c.seq), 0) FROM metric_segment_changes c WHERE c.funnel_id = $1)::text AS seq,
              ARRAY(SELECT DISTINCT x.minute FROM metric_segment_changes c CROSS JOIN LATERAL (${staleMinutesSql('$1', 'c')}) AS x
                    WHERE c.funnel_id = $1 AND x.minute < ${millis('f.folded_to')}) AS stale
       FROM metric_segment_folds f WHERE f.funnel_id = $1`;

/** Whether funnel $1 recorded a change after the change $2 (a plan's `seq`). */
export const CHANGED_SINCE_SQL = `SELECT EXISTS (SELECT 1 FROM metric_segment_changes WHERE funnel_id = $1 AND seq > $2::bigint) AS changed`;

/** A window split into the segment rollups' whole buckets and the raw pieces around them. */
export interface SegmentPlan {
  segments: Segment[];
  raw: RawPiece[];
  /** The last change recorded when the plan was made: a read is exact if none came after. */
  seq: string;
}

/** What of a funnel is folded: rollups before `foldedTo` except the stale minutes. */
interface FoldState {
  foldedTo: number | null;
  stale: Set<number>;
  seq: string;
}

/**
 * Plans reads over the segment rollups: whole buckets of the folded, unchanged minutes,
 * raw rows for the rest (the minutes past the watermark, those whose changes are not folded yet,
 * and the edges), so an answer is exact whatever the folder has done.
 */
@Injectable()
export class SegmentPlanner {
  constructor(private readonly reads: ReadPool) {}

  private async state(funnelId: string): Promise<FoldState> {
    const [row]: {
      folded_to: number | null;
      seq: string;
      stale: number[] | null;
    }[] = await this.reads.rows(FOLD_STATE_SQL, [funnelId]);
    if (!row) return { foldedTo: null, stale: new Set(), seq: '0' };
    return {
      foldedTo: row.folded_to === null ? null : Number(row.folded_to),
      stale: new Set((row.stale ?? []).map(Number)),
      seq: row.seq,
    };
  }

  /** True when a change was recorded after the plan (a read over it may have missed it). */
  async changedSince(funnelId: string, plan: SegmentPlan): Promise<boolean> {
    const [row]: { changed: boolean }[] = await this.reads.rows(CHANGED_SINCE_SQL, [funnelId, plan.seq]);
    return row.changed;
  }

  /** The plan of [from, to) that reads every minute raw, as for a funnel not folded yet. */
  rawPlan(
    from: number,
    to: number,
    grains: readonly number[],
    options: Pick<CoverOptions, 'outside'> = {},
  ): SegmentPlan {
    return { ...planWindow({ foldedTo: null, stale: new Set() }, from, to, grains, options), seq: '0' };
  }

  /**
   * The plan of [from, to) over `grains` (seconds, coarsest first, of SEGMENT_GRAINS); see
   * planWindow.
   */
  async plan(
    funnelId: string,
    from: number,
    to: number,
    grains: readonly number[],
    options: Pick<CoverOptions, 'outside'> = {},
  ): Promise<SegmentPlan> {
    const state = await this.state(funnelId);
    return { ...planWindow(state, from, to, grains, options), seq: state.seq };
  }
}

/**
 * Splits [from, to) into whole buckets of the folded minutes that no pending change names, and raw
 * pieces for the rest: the minutes past `foldedTo`, the stale minutes and the edges. Each part
 * between them is covered by signedCover, whose buckets (counted or subtracted, inside the part or
 * reaching past it) all hold clean folded minutes only.
 */
export function planWindow(
  { foldedTo, stale }: Pick<FoldState, 'foldedTo' | 'stale'>,
  from: number,
  to: number,
  grains: readonly number[],
  options: Pick<CoverOptions, 'outside'> = {},
): Omit<SegmentPlan, 'seq'> {
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
