import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The segment rollups stop at the minute: their ten-second rows are deleted, and with them
 * `finest_from`, which said where those rows began. Filtered reads take at most half a minute of
 * raw rows at each edge instead of five seconds, with the same answers; the fold computes and
 * writes about a third of the rows it did. `down` leaves a database as one folded before those rows
 * existed: `finest_from` at `folded_to`, so that release reads no ten-second row before it.
 */
export class SegmentRollupsFromTheMinute1796670000001 implements MigrationInterface {
  name = 'SegmentRollupsFromTheMinute1796670000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_segment_rollups" WHERE "grain" = 10`);
    await queryRunner.query(`ALTER TABLE "metric_segment_folds" DROP COLUMN "finest_from"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "metric_segment_folds" ADD "finest_from" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`UPDATE "metric_segment_folds" SET "finest_from" = "folded_to"`);
  }
}
