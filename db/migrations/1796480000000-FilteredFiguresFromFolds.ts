import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every filtered figure now reads the folded segment rollups, which gain ten-second rows (so that
 * an edge takes at most five seconds of raw rows) and each segment's session outcomes (sessions,
 * conversions, completions, time to completion). These are computed by the fold job, not here:
 * every funnel's watermarks go back to never folded, and the job folds each again from its first
 * minute, rewriting only the rows that differ. Until it has, filtered reads take the minutes not
 * folded from the raw rows, exact as always. The rows of months whose raw events are gone stay
 * and keep their events; the retention keeps raw events until a funnel is folded past them.
 *
 * The `segment` rows of the session rollups, which ingestion wrote for the filtered figures and
 * nothing reads any more, are deleted; ingestion no longer writes them.
 */
export class FilteredFiguresFromFolds1796480000000 implements MigrationInterface {
  name = 'FilteredFiguresFromFolds1796480000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_segment_changes"`);
    await queryRunner.query(`UPDATE "metric_segment_folds" SET "sealed_to" = NULL, "folded_to" = NULL`);
    await queryRunner.query(`DELETE FROM "metric_session_rollups" WHERE "dimension" = 'segment'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // The session rollups' segment rows are not rebuilt here: this code no longer computes them.
    // The version before rebuilds them when its SessionSegments migration is reverted and run again.
    await queryRunner.query(`DELETE FROM "metric_segment_rollups" WHERE "grain" = 10`);
  }
}
