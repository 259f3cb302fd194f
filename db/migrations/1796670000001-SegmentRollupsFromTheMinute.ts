import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The segment rollups stop at the minute: their ten-second rows are deleted. Filtered reads take
 * at most half a minute of raw rows at each edge instead of five seconds, with the same answers;
 * the fold computes and writes about a third of the rows it did.
 *
 * `finest_from` stays, for the pods of the release before while a rollout replaces them: at
 * 'infinity' (also for funnels added meanwhile), those read no ten-second row of either rollup
 * table and take those edges raw, so their answers stay exact. `down` leaves a database as one
 * folded before the ten-second rows existed: `finest_from` at `folded_to`.
 */
export class SegmentRollupsFromTheMinute1796670000001 implements MigrationInterface {
  name = 'SegmentRollupsFromTheMinute1796670000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_segment_rollups" WHERE "grain" = 10`);
    await queryRunner.query(
      `ALTER TABLE "metric_segment_folds" ALTER COLUMN "finest_from" SET DEFAULT 'infinity'`,
    );
    await queryRunner.query(`UPDATE "metric_segment_folds" SET "finest_from" = 'infinity'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "metric_segment_folds" ALTER COLUMN "finest_from" DROP DEFAULT`);
    await queryRunner.query(`UPDATE "metric_segment_folds" SET "finest_from" = "folded_to"`);
  }
}
