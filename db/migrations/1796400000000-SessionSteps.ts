import { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillStepMarks, RunSql } from '@app/metrics';

/**
 * Step summaries: one row per session with every time it reached a step key, which step funnels
 * read instead of joining events (docs/METRICS.md, "How it stays fast"), and each funnel's step
 * keys, numbered. Filled from the stored events and sessions; rewritten on every batch that
 * touches a session, hence the fill factor that leaves room for HOT updates, as metric_sessions.
 */
export class SessionSteps1796400000000 implements MigrationInterface {
  name = 'SessionSteps1796400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "metric_session_steps" ("funnel_id" uuid NOT NULL, "session_id" character varying(128) NOT NULL, "started_ms" bigint, "device" character varying(8), "utm_source" character varying(200), "ab_variant" character varying(8), "utm_medium" character varying(200), "utm_campaign" character varying(200), "marks" bigint array NOT NULL DEFAULT '{}', CONSTRAINT "PK_b156ade64545a796a1dda5202a0" PRIMARY KEY ("funnel_id", "session_id")) WITH (fillfactor = 80)`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_metric_session_steps_started" ON "metric_session_steps" ("funnel_id", "started_ms") WHERE "started_ms" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "metric_step_keys" ("funnel_id" uuid NOT NULL, "key" character varying(210) NOT NULL, "id" integer NOT NULL, CONSTRAINT "PK_5bfdb83da5c18c4ecdc2020bb35" PRIMARY KEY ("funnel_id", "key"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_metric_step_keys_id" ON "metric_step_keys" ("funnel_id", "id")`,
    );
    const run: RunSql = (sql, params) => queryRunner.query(sql, params);
    await backfillStepMarks(run);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "metric_step_keys"`);
    await queryRunner.query(`DROP TABLE "metric_session_steps"`);
  }
}
