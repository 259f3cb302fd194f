import type { RunSql } from '../rollups/session-backfill';
import { millis } from '../sql/epoch';
import { bucketStart, SECOND_MS } from '../time/buckets';
import { coarserRows, rowsDocuments, STORED_COLUMNS, storedRow, upsertRowsSql } from './segment-rows';

const DAY_MS = 86_400_000;

/**
 * For a migration that adds `grain` to SEGMENT_GRAINS: its rows summed from the stored rows of
 * `finer`, for every whole bucket of each funnel's folded minutes (before `folded_to`), as the
 * fold would have written them (coarserRows). The folds' rows are locked meanwhile (the job passes
 * over a funnel another holds), and a day of buckets is read and written at a time, so a large
 * funnel is never held in memory at once.
 */
export async function backfillSegmentGrain(run: RunSql, grain: number, finer: number): Promise<void> {
  const size = grain * SECOND_MS;
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
      await run(upsertRowsSql('$1', documents.length, 2), [fold.funnel_id, ...documents]);
    }
  }
}
