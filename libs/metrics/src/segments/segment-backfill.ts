import { SESSION_ROLLUP_DIMENSIONS } from '../events/session-definitions';
import { SESSION_COLUMNS, sessionFromRow, SessionRow } from '../events/session-row';
import { emptySession, SessionState } from '../events/session-state';
import { sessionRollupDeltas } from '../rollups/rollup-deltas';
import { sessionRollupUpsertSql, sessionRollupValues } from '../rollups/rollup-rows';
import type { RunSql } from '../rollups/session-backfill';
import { millis } from '../sql/epoch';
import { bucketStart, FINEST_SEGMENT_GRAIN, SECOND_MS, SEGMENT_GRAINS } from '../time/buckets';
import {
  coarserRows,
  finestRows,
  rowsDocuments,
  SegmentRow,
  STORED_COLUMNS,
  storedRow,
  TOTAL_COLUMNS,
  upsertRowsSql,
  VALUE_COLUMNS,
} from './segment-rows';

const DAY_MS = 86_400_000;

/**
 * How a migration's backfill writes segment rows: the columns of a row the table has at the
 * migration's turn, stamped with the fold's version once it has that column (upsertRowsSql).
 */
async function writtenColumns(run: RunSql): Promise<{ columns: string[]; stamped: boolean }> {
  const rows = (await run(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = 'metric_segment_rollups'`,
    [],
  )) as { column_name: string }[];
  const present = new Set(rows.map((r) => r.column_name));
  return { columns: VALUE_COLUMNS.filter((c) => present.has(c)), stamped: present.has('fold_version') };
}

/**
 * For a migration that adds `grain` to SEGMENT_GRAINS: its rows summed from the stored rows of
 * `finer`, for every whole bucket of each funnel's folded minutes (before `folded_to`), as the
 * fold would have written them (coarserRows). The folds' rows are locked meanwhile (the job passes
 * over a funnel another holds), and a day of buckets is read and written at a time, so a large
 * funnel is never held in memory at once.
 */
export async function backfillSegmentGrain(run: RunSql, grain: number, finer: number): Promise<void> {
  const size = grain * SECOND_MS;
  const written = await writtenColumns(run);
  const folds = (await run(
    `SELECT funnel_id, ${millis('folded_to')} AS folded_to FROM metric_segment_folds
     WHERE folded_to IS NOT NULL ORDER BY funnel_id FOR UPDATE`,
    [],
  )) as { funnel_id: string; folded_to: number }[];
  for (const fold of folds) {
    const [{ first }] = (await run(
      `SELECT ${millis('min(bucket)')} AS first FROM metric_segment_rollups WHERE funnel_id = $1 AND grain = $2`,
      [fold.funnel_id, finer],
    )) as { first: number | null }[];
    if (first === null) continue;
    for (let day = bucketStart(Number(first), 86_400); day < fold.folded_to; day += DAY_MS) {
      const rows = await run(
        `SELECT ${STORED_COLUMNS} FROM metric_segment_rollups r
         WHERE r.funnel_id = $1 AND r.grain = $2 AND r.bucket >= $3 AND r.bucket < $4`,
        [
          fold.funnel_id,
          finer,
          new Date(day).toISOString(),
          new Date(Math.min(day + DAY_MS, fold.folded_to)).toISOString(),
        ],
      );
      const whole = coarserRows(rows.map(storedRow), grain).filter((r) => r.bucket + size <= fold.folded_to);
      if (!whole.length) continue;
      const documents = rowsDocuments(whole);
      await run(upsertRowsSql('$1', documents.length, 2, written), [fold.funnel_id, ...documents]);
    }
  }
}

/** Rows one statement of backfillSegmentTotals writes. */
const TOTALS_PER_STATEMENT = 5000;

/** A funnel's folded minutes (epoch ms): before `foldedTo`, ten-second rows from `finestFrom` on. */
interface FoldedRange {
  funnelId: string;
  foldedTo: number;
  finestFrom: number;
}

/**
 * Calls `handle` with the sessions of each funnel's folded minutes (started before `folded_to`), a
 * day at a time, so a large funnel is never held in memory at once. The folds' rows are locked
 * meanwhile (the job passes over a funnel another holds).
 */
async function eachFoldedDay(
  run: RunSql,
  handle: (fold: FoldedRange, sessions: SessionState[]) => Promise<void>,
): Promise<void> {
  const folds = (await run(
    `SELECT funnel_id, ${millis('folded_to')} AS folded_to, ${millis('finest_from')} AS finest_from
     FROM metric_segment_folds WHERE folded_to IS NOT NULL ORDER BY funnel_id FOR UPDATE`,
    [],
  )) as { funnel_id: string; folded_to: number; finest_from: number | null }[];
  for (const fold of folds) {
    const foldedTo = Number(fold.folded_to);
    const [{ first }] = (await run(
      `SELECT ${millis('min(started_at)')} AS first FROM metric_sessions WHERE funnel_id = $1 AND started_at IS NOT NULL`,
      [fold.funnel_id],
    )) as { first: number | null }[];
    if (first === null) continue;
    for (let day = bucketStart(Number(first), 86_400); day < foldedTo; day += DAY_MS) {
      const sessions = (await run(
        `SELECT ${SESSION_COLUMNS} FROM metric_sessions
         WHERE funnel_id = $1 AND started_at >= $2 AND started_at < $3`,
        [
          fold.funnel_id,
          new Date(day).toISOString(),
          new Date(Math.min(day + DAY_MS, foldedTo)).toISOString(),
        ],
      )) as SessionRow[];
      const finestFrom = fold.finest_from === null ? -Infinity : Number(fold.finest_from);
      if (sessions.length)
        await handle({ funnelId: fold.funnel_id, foldedTo, finestFrom }, sessions.map(sessionFromRow));
    }
  }
}

/**
 * For a migration that adds the session totals' columns to the segment rollups: the totals of every
 * whole bucket of each funnel's folded minutes, computed from the sessions started in it as the
 * fold computes them (finestRows, coarserRows). A stored row gets its totals; a row the fold would
 * have written for sessions alone, and that is missing, is inserted. Ten-second rows only from
 * `finest_from`, as the fold keeps them.
 */
export async function backfillSegmentTotals(run: RunSql): Promise<void> {
  const written = await writtenColumns(run);
  await eachFoldedDay(run, async ({ funnelId, foldedTo, finestFrom }, sessions) => {
    const levels: SegmentRow[][] = [finestRows(sessions, [])];
    for (const grain of SEGMENT_GRAINS.filter((g) => g !== FINEST_SEGMENT_GRAIN))
      levels.push(coarserRows(levels[0], grain));
    const whole = levels
      .flat()
      .filter(
        (r) =>
          r.bucket + r.grain * SECOND_MS <= foldedTo &&
          (r.grain !== FINEST_SEGMENT_GRAIN || r.bucket >= finestFrom),
      );
    for (let from = 0; from < whole.length; from += TOTALS_PER_STATEMENT) {
      const documents = rowsDocuments(whole.slice(from, from + TOTALS_PER_STATEMENT));
      await run(upsertRowsSql('$1', documents.length, 2, { ...written, updated: TOTAL_COLUMNS }), [
        funnelId,
        ...documents,
      ]);
    }
  });
}

/**
 * For the migration that has the fold write the session rollups' ten-second rows: those rows of each
 * funnel's folded minutes from `finest_from` on (where reads take ten-second rows), from the sessions
 * started in them, as the fold computes them.
 */
export async function backfillSessionTenSeconds(run: RunSql): Promise<void> {
  await eachFoldedDay(run, async ({ funnelId, finestFrom }, sessions) => {
    const started = sessions
      .filter((s) => s.startedAt !== null && s.startedAt >= finestFrom)
      .map((after) => ({ before: emptySession(after.sessionId), after }));
    const rows = sessionRollupDeltas(started, SESSION_ROLLUP_DIMENSIONS, [FINEST_SEGMENT_GRAIN]);
    if (rows.length)
      await run(sessionRollupUpsertSql('$1::uuid', 2), [funnelId, ...sessionRollupValues(rows)]);
  });
}
