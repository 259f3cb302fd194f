import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The session rollups get one writer again, ingestion: the ten-second rows the segment fold wrote
 * there are deleted, and reads take their edges off the minute from the sessions themselves, as
 * they did where no such row was folded. The segment rollups lose `fold_version`, which kept the
 * fold of an earlier release, which did not write those rows, from writing during a rollout.
 * `down` leaves the session rollups without ten-second rows, as a database folded before they
 * existed: `finest_from` moves to `folded_to`, so that release reads no ten-second row before it.
 */
export class SessionRollupsOneWriter1796670000000 implements MigrationInterface {
  name = 'SessionRollupsOneWriter1796670000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_session_rollups" WHERE "grain" = 10`);
    await queryRunner.query(`ALTER TABLE "metric_segment_rollups" DROP COLUMN "fold_version"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "metric_segment_rollups" ADD "fold_version" smallint NOT NULL DEFAULT 2`,
    );
    await queryRunner.query(`ALTER TABLE "metric_segment_rollups" ALTER COLUMN "fold_version" DROP DEFAULT`);
    await queryRunner.query(`UPDATE "metric_segment_folds" SET "finest_from" = "folded_to"`);
  }
}
