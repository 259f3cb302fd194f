import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The step summaries by sample bucket: a step funnel over many sessions reads a uniform sample of
 * them, the sessions of the first buckets of a hash of the second they started in
 * (libs/metrics/src/steps/session-sample.ts), one index range per bucket and period. An exact read asks for every bucket,
 * so this index replaces the one by start alone instead of adding a write to ingestion.
 */
export class StepFunnelSample1796470000000 implements MigrationInterface {
  name = 'StepFunnelSample1796470000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_metric_session_steps_sample" ON "metric_session_steps" ("funnel_id", (hashint8("started_ms" / 1000) & 1023), "started_ms") WHERE "started_ms" IS NOT NULL`,
    );
    await queryRunner.query(`DROP INDEX "public"."idx_metric_session_steps_started"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_metric_session_steps_started" ON "metric_session_steps" ("funnel_id", "started_ms") WHERE "started_ms" IS NOT NULL`,
    );
    await queryRunner.query(`DROP INDEX "public"."idx_metric_session_steps_sample"`);
  }
}
