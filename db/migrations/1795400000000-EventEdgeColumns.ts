import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The raw events at a window's sub-minute edges are read by type and time: the key leads with
 * type, so a read of clicks visits only clicks, and the fields those reads aggregate (the rollup
 * key, the button label, the time on page) are plain columns instead of members of the json
 * payload, which PostgreSQL would parse once per field and row.
 */
export class EventEdgeColumns1795400000000 implements MigrationInterface {
  name = 'EventEdgeColumns1795400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "metric_events" ADD "key" character varying(200), ADD "button_label" character varying(200), ADD "time_on_page_ms" integer',
    );
    await queryRunner.query(
      `UPDATE "metric_events" SET "key" = CASE "type" WHEN 'page_view' THEN payload->>'pageSlug' ELSE payload->>'buttonId' END,
         "button_label" = payload->>'buttonLabel', "time_on_page_ms" = (payload->>'timeOnPageMs')::integer
       WHERE "type" IN ('page_view', 'button_click')`,
    );
    await queryRunner.query('ALTER TABLE "metric_events" DROP CONSTRAINT "PK_8f6bf101326b8e3496fb8e9c345"');
    // The event id hashes the type, so (funnel, type, time, id) identifies an event exactly as before.
    await queryRunner.query(
      'ALTER TABLE "metric_events" ADD CONSTRAINT "PK_a77b97398545743a192e1479ea1" PRIMARY KEY ("funnel_id", "type", "occurred_at", "event_id")',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "metric_events" DROP CONSTRAINT "PK_a77b97398545743a192e1479ea1"');
    await queryRunner.query(
      'ALTER TABLE "metric_events" ADD CONSTRAINT "PK_8f6bf101326b8e3496fb8e9c345" PRIMARY KEY ("funnel_id", "occurred_at", "event_id")',
    );
    await queryRunner.query(
      'ALTER TABLE "metric_events" DROP COLUMN "time_on_page_ms", DROP COLUMN "button_label", DROP COLUMN "key"',
    );
  }
}
