import { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillSegmentGrain, RunSql } from '@app/metrics';

/**
 * The segment rollups gain five-minute rows (SEGMENT_GRAINS), so that a filtered read sums fewer
 * minute rows at its edges. The fold job writes them from now on; here they are summed from the
 * stored minute rows of every whole five minutes already folded, as the job would have written
 * them, so reads find them everywhere at once (nothing is folded again from raw rows).
 */
export class FiveMinuteSegments1796480000000 implements MigrationInterface {
  name = 'FiveMinuteSegments1796480000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const run: RunSql = (sql, params) => queryRunner.query(sql, params);
    await backfillSegmentGrain(run, 300, 60);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_segment_rollups" WHERE "grain" = 300`);
  }
}
