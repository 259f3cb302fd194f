import { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillSessionTenSeconds, RunSql } from '@app/metrics';

/**
 * The session rollups get ten-second rows, which the fold writes from the sessions of the minutes
 * it folds (ingestion keeps writing the minute and coarser rows): an edge of a session figure reads
 * them where its minute is folded and unchanged, instead of half a minute of sessions. They are
 * computed here for the folded minutes from `finest_from` on, as the fold would have.
 *
 * The segment rollups get `fold_version`, without a default: a fold of the previous release, which
 * would fold a late change without rewriting the ten-second session rows of its minute, fails
 * instead of writing, and the new pods fold those minutes.
 *
 * The session rollups' `segment` rows, kept by SegmentSessionTotals for the release before it and
 * read by none since, are deleted; that migration's down rebuilds them.
 */
export class TenSecondSessionRollups1796520000000 implements MigrationInterface {
  name = 'TenSecondSessionRollups1796520000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "metric_segment_rollups" ADD "fold_version" smallint NOT NULL DEFAULT 1`,
    );
    await queryRunner.query(`ALTER TABLE "metric_segment_rollups" ALTER COLUMN "fold_version" DROP DEFAULT`);
    await queryRunner.query(`DELETE FROM "metric_session_rollups" WHERE "dimension" = 'segment'`);
    const run: RunSql = (sql, params) => queryRunner.query(sql, params);
    await backfillSessionTenSeconds(run);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_session_rollups" WHERE "grain" = 10`);
    await queryRunner.query(`ALTER TABLE "metric_segment_rollups" DROP COLUMN "fold_version"`);
  }
}
