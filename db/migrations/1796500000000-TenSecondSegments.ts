import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The segment rollups gain ten-second rows (SEGMENT_GRAINS), so that a filtered read of page views
 * or clicks joins at most five seconds of raw events to their sessions at each edge instead of half
 * a minute. The fold job computes them from raw rows with the minutes it folds from now on;
 * `finest_from` records where they begin, so reads take no ten-second row among the minutes folded
 * before (they read those edges as before: the minute less the rest). Nothing is folded again.
 */
export class TenSecondSegments1796500000000 implements MigrationInterface {
  name = 'TenSecondSegments1796500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "metric_segment_folds" ADD "finest_from" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`UPDATE "metric_segment_folds" SET "finest_from" = "folded_to"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_segment_rollups" WHERE "grain" = 10`);
    await queryRunner.query(`ALTER TABLE "metric_segment_folds" DROP COLUMN "finest_from"`);
  }
}
