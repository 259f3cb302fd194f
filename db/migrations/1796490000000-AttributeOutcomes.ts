import { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillSessionDimensions, RunSql } from '@app/metrics';

/**
 * The session rollups' `device` and `source` rows count each session's conversion, completion and
 * time to completion too (the `attribute` shape, session-definitions.ts), so a session KPI broken
 * down by device or source sums one row per value in each bucket instead of one per segment. The
 * rows are rebuilt from the stored sessions, as ingestion writes them from now on: one pass over
 * metric_sessions, a page of sessions at a time.
 */
export class AttributeOutcomes1796490000000 implements MigrationInterface {
  name = 'AttributeOutcomes1796490000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_session_rollups" WHERE "dimension" IN ('device', 'source')`);
    const run: RunSql = (sql, params) => queryRunner.query(sql, params);
    await backfillSessionDimensions(run, ['device', 'source']);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "metric_session_rollups" SET "conversions" = 0, "completions" = 0, "completion_ms" = 0
       WHERE "dimension" IN ('device', 'source')`,
    );
  }
}
