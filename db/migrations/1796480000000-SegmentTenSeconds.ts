import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The segment rollups gain ten-second rows (SEGMENT_GRAINS), so that a filtered read's edge takes
 * at most five seconds of raw rows. The fold job writes them for every minute it folds from now
 * on; the minutes folded before keep their rows down to the minute, and `fine_from` (the folded
 * watermark at upgrade) tells reads where the ten-second rows begin. Nothing is folded again, so
 * filtered reads stay as fast as before over the older minutes. To have ten-second rows there
 * too, set a funnel's `sealed_to`, `folded_to` and `fine_from` to NULL: the job folds it again
 * from its first minute (reads take the minutes not yet folded raw, exact as always).
 */
export class SegmentTenSeconds1796480000000 implements MigrationInterface {
  name = 'SegmentTenSeconds1796480000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "metric_segment_folds" ADD "fine_from" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`UPDATE "metric_segment_folds" SET "fine_from" = "folded_to"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_segment_rollups" WHERE "grain" = 10`);
    await queryRunner.query(`ALTER TABLE "metric_segment_folds" DROP COLUMN "fine_from"`);
  }
}
