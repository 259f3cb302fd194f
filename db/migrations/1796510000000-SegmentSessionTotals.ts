import { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillSegmentTotals, backfillSessionDimensions, RunSql } from '@app/metrics';

const TOTALS = ['started', 'conversions', 'completions', 'completion_ms'];

/**
 * A segment's session totals (sessions started, conversions, completions, time to completion) move
 * from the session rollups' `segment` rows, which ingestion kept in step with every batch, to
 * columns of the segment rollups, which the fold computes from the sessions. They are computed here
 * for every whole bucket already folded, as the fold would have.
 *
 * The columns keep no default: a fold of the previous release, whose rows would lack the totals,
 * fails instead of writing them, and the new pods fold those minutes. The previous release's pods
 * read the `segment` session rows while a rollout replaces them, so those rows stay (no longer
 * written or read) until a later release deletes them; down() rebuilds them from the sessions.
 */
export class SegmentSessionTotals1796510000000 implements MigrationInterface {
  name = 'SegmentSessionTotals1796510000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "metric_segment_rollups" ADD "started" integer NOT NULL DEFAULT 0,
         ADD "conversions" integer NOT NULL DEFAULT 0, ADD "completions" integer NOT NULL DEFAULT 0,
         ADD "completion_ms" bigint NOT NULL DEFAULT 0`,
    );
    const run: RunSql = (sql, params) => queryRunner.query(sql, params);
    await backfillSegmentTotals(run);
    await queryRunner.query(
      `ALTER TABLE "metric_segment_rollups" ${TOTALS.map((c) => `ALTER COLUMN "${c}" DROP DEFAULT`).join(', ')}`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_session_rollups" WHERE "dimension" = 'segment'`);
    const run: RunSql = (sql, params) => queryRunner.query(sql, params);
    await backfillSessionDimensions(run, ['segment']);
    await queryRunner.query(
      `ALTER TABLE "metric_segment_rollups" ${TOTALS.map((c) => `DROP COLUMN "${c}"`).join(', ')}`,
    );
  }
}
