import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The segment rollups gain ten-second rows (SEGMENT_GRAINS), so that a filtered read's edge takes
 * at most five seconds of raw rows. They are computed by the fold job, not here: every funnel's
 * watermarks go back to never folded, and the job folds each again from its first minute,
 * rewriting only the rows that differ. Until it has, reads take the minutes not folded from the
 * raw rows, exact as always. The rows of months whose raw events are gone stay and keep their
 * events; the retention keeps raw events until a funnel is folded past them.
 */
export class SegmentTenSeconds1796480000000 implements MigrationInterface {
  name = 'SegmentTenSeconds1796480000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_segment_changes"`);
    await queryRunner.query(`UPDATE "metric_segment_folds" SET "sealed_to" = NULL, "folded_to" = NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_segment_rollups" WHERE "grain" = 10`);
  }
}
