import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `metric_segment_folds.finest_from` recorded where the ten-second segment rows of an earlier
 * release began; `SegmentRollupsFromTheMinute` set it to `infinity` when it deleted them, and no
 * code of this release or of the one before reads or writes it. `down` gives it back as that
 * migration left it.
 */
export class SegmentFoldsWithoutFinestFrom1796720000000 implements MigrationInterface {
  name = 'SegmentFoldsWithoutFinestFrom1796720000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "metric_segment_folds" DROP COLUMN "finest_from"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "metric_segment_folds" ADD "finest_from" TIMESTAMP WITH TIME ZONE DEFAULT 'infinity'`,
    );
  }
}
