import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The months whose raw events the retention dropped, recorded by the database rather than deduced
 * from a process's EVENT_RETENTION_MONTHS: every process refuses their events and the fold never
 * recomputes their minutes from raw rows that are gone. Filled here with the months that have
 * rollups of events (page views, clicks, sessions started) but no partition of metric_events left:
 * their raw events were dropped.
 */
export class DroppedEventMonths1796630000000 implements MigrationInterface {
  name = 'DroppedEventMonths1796630000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "metric_dropped_event_months" ("month" TIMESTAMP WITH TIME ZONE NOT NULL, "dropped_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_d1419184d6fce0ac79466a466a8" PRIMARY KEY ("month"))`,
    );
    await queryRunner.query(
      `INSERT INTO "metric_dropped_event_months" ("month")
       SELECT m.month FROM (
         SELECT DISTINCT date_trunc('month', "bucket", 'UTC') AS month FROM "metric_event_rollups"
         WHERE "grain" = 86400 AND "dimension" IN ('activity', 'page', 'button')
         UNION
         SELECT DISTINCT date_trunc('month', "bucket", 'UTC') FROM "metric_session_rollups"
         WHERE "grain" = 86400 AND "dimension" = 'all'
       ) AS m
       WHERE to_regclass(format('metric_events_p%s', to_char(m.month AT TIME ZONE 'UTC', 'YYYY_MM'))) IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "metric_dropped_event_months"`);
  }
}
