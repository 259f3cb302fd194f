import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The start-time index of metric_sessions leaves out pending sessions (no start yet), which no
 * read by start time wants. Ingestion looks sessions up by (funnel, session id); with this index
 * partial, the primary key is the only index that lookup can use, so a plan made while the table
 * was small cannot later scan every session of the funnel through the start-time index.
 */
export class SessionsStartedPartial1795500000000 implements MigrationInterface {
  name = 'SessionsStartedPartial1795500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."idx_metric_sessions_started"');
    await queryRunner.query(
      'CREATE INDEX "idx_metric_sessions_started" ON "metric_sessions" ("funnel_id", "started_at") WHERE "started_at" IS NOT NULL',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."idx_metric_sessions_started"');
    await queryRunner.query(
      'CREATE INDEX "idx_metric_sessions_started" ON "metric_sessions" ("funnel_id", "started_at") ',
    );
  }
}
