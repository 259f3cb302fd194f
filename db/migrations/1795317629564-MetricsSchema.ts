import { MigrationInterface, QueryRunner } from 'typeorm';

export class MetricsSchema1795317629564 implements MigrationInterface {
  name = 'MetricsSchema1795317629564';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Sessions and rollups are updated in place by every batch: free space on their pages keeps
    // those updates HOT (no new index entries).
    // Partitioned by month of occurred_at (TypeORM cannot express it); partitions are created on
    // demand by the ingestion (EventPartitions). The key includes occurred_at, as partitioning requires.
    await queryRunner.query(
      'CREATE TABLE "metric_events" ("funnel_id" uuid NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "event_id" uuid NOT NULL, "session_id" character varying(128) NOT NULL, "type" character varying(20) NOT NULL, "payload" json NOT NULL DEFAULT \'{}\', CONSTRAINT "PK_8f6bf101326b8e3496fb8e9c345" PRIMARY KEY ("funnel_id", "occurred_at", "event_id")) PARTITION BY RANGE ("occurred_at")',
    );
    await queryRunner.query(
      'CREATE TABLE "metric_event_rollups" ("funnel_id" uuid NOT NULL, "dimension" character varying(16) NOT NULL, "grain" smallint NOT NULL, "bucket" TIMESTAMP WITH TIME ZONE NOT NULL, "key" character varying(200) NOT NULL, "events" integer NOT NULL DEFAULT \'0\', "timed" integer NOT NULL DEFAULT \'0\', "total_ms" bigint NOT NULL DEFAULT \'0\', "label" character varying(200), "label_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_189bda0d400ff4de8f32eb09614" PRIMARY KEY ("funnel_id", "dimension", "grain", "bucket", "key")) WITH (fillfactor = 80)',
    );
    await queryRunner.query(
      'CREATE TABLE "metric_messages" ("funnel_id" uuid NOT NULL, "message_id" uuid NOT NULL, "delivered_at" TIMESTAMP WITH TIME ZONE, "opened_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_c96b046666c61dd91da9e24d93c" PRIMARY KEY ("funnel_id", "message_id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "metric_questions" ("funnel_id" uuid NOT NULL, "question_id" character varying(20) NOT NULL, "title" character varying(500) NOT NULL, "title_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_4d1840750d0ced72e0dde501614" PRIMARY KEY ("funnel_id", "question_id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "metric_sessions" ("funnel_id" uuid NOT NULL, "session_id" character varying(128) NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE, "start_event_id" uuid, "visitor_id" character varying(128), "device" character varying(8), "utm_source" character varying(200), "ab_variant" character varying(8), "pages" text array NOT NULL DEFAULT \'{}\', "converted_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, "answers" jsonb NOT NULL DEFAULT \'{}\', CONSTRAINT "PK_d5309006fb23b2f32e257382f0c" PRIMARY KEY ("funnel_id", "session_id")) WITH (fillfactor = 80)',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_metric_sessions_started" ON "metric_sessions"  ("funnel_id", "started_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "metric_session_rollups" ("funnel_id" uuid NOT NULL, "dimension" character varying(40) NOT NULL, "grain" smallint NOT NULL, "bucket" TIMESTAMP WITH TIME ZONE NOT NULL, "key" character varying(600) NOT NULL, "sessions" integer NOT NULL DEFAULT \'0\', "conversions" integer NOT NULL DEFAULT \'0\', "completions" integer NOT NULL DEFAULT \'0\', "completion_ms" bigint NOT NULL DEFAULT \'0\', CONSTRAINT "PK_e7719f877e168f63eedc3be6c94" PRIMARY KEY ("funnel_id", "dimension", "grain", "bucket", "key")) WITH (fillfactor = 80)',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "metric_session_rollups"');
    await queryRunner.query('DROP INDEX "public"."idx_metric_sessions_started"');
    await queryRunner.query('DROP TABLE "metric_sessions"');
    await queryRunner.query('DROP TABLE "metric_questions"');
    await queryRunner.query('DROP TABLE "metric_messages"');
    await queryRunner.query('DROP TABLE "metric_event_rollups"');
    // Drops every monthly partition with it.
    await queryRunner.query('DROP TABLE "metric_events"');
  }
}
