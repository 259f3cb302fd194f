import { MigrationInterface, QueryRunner } from 'typeorm';

const TABLES = ['metric_event_rollups', 'metric_session_rollups'];

// Bucket start of a time in the ten-second grain.
const tenSeconds = (at: string) => `to_timestamp(floor(extract(epoch FROM ${at}) / 10) * 10)`;

/**
 * Rollup grains are counted in seconds, and the rollups of page views, clicks and messages gain a
 * ten-second grain below the minute, so a window's edges read at most five seconds of their raw
 * rows instead of thirty. The ten-second rows of what is already stored are computed from it, as
 * ingestion would have written them (eventRollupDeltas and messageRollupDeltas).
 */
export class TenSecondEventRollups1795600000000 implements MigrationInterface {
  name = 'TenSecondEventRollups1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES)
      await queryRunner.query(`ALTER TABLE "${table}" ALTER COLUMN "grain" TYPE integer USING "grain" * 60`);
    // Page views (activity, and per page with the reported times on page) and clicks per button
    // with the latest label: the newest click, and of clicks at the same time the greatest label.
    await queryRunner.query(
      `INSERT INTO metric_event_rollups (funnel_id, dimension, grain, bucket, key, events, timed, total_ms, label, label_at)
       SELECT e.funnel_id, d.dimension, 10, ${tenSeconds('e.occurred_at')}, d.key, count(*),
              count(d.time_on_page_ms), coalesce(sum(d.time_on_page_ms), 0),
              (array_agg(d.label ORDER BY e.occurred_at DESC, d.label COLLATE "C" DESC)
                FILTER (WHERE d.label IS NOT NULL))[1],
              max(e.occurred_at) FILTER (WHERE d.label IS NOT NULL)
       FROM metric_events e
       CROSS JOIN LATERAL (
         SELECT 'activity' AS dimension, '' AS key, NULL::int AS time_on_page_ms, NULL::text AS label
         WHERE e.type = 'page_view'
         UNION ALL SELECT 'page', e.key, e.time_on_page_ms, NULL WHERE e.type = 'page_view'
         UNION ALL SELECT 'button', e.key, NULL, e.button_label WHERE e.type = 'button_click'
       ) AS d
       WHERE e.type IN ('page_view', 'button_click')
       GROUP BY e.funnel_id, d.dimension, 4, d.key`,
    );
    // Messages delivered (an opening implies a delivery) and opened, at the message's send time;
    // those of a message that is not a contact message of the funnel count nowhere.
    await queryRunner.query(
      `INSERT INTO metric_event_rollups (funnel_id, dimension, grain, bucket, key, events)
       SELECT m.funnel_id, 'message', 10, ${tenSeconds('c.created_at')}, d.key, count(*)
       FROM metric_messages m
       JOIN contact_messages c ON c.id = m.message_id AND c.funnel_id = m.funnel_id
       CROSS JOIN LATERAL (
         SELECT 'delivered' AS key WHERE m.delivered_at IS NOT NULL OR m.opened_at IS NOT NULL
         UNION ALL SELECT 'opened' WHERE m.opened_at IS NOT NULL
       ) AS d
       GROUP BY m.funnel_id, 4, d.key`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM "metric_event_rollups" WHERE "grain" = 10');
    for (const table of TABLES)
      await queryRunner.query(`ALTER TABLE "${table}" ALTER COLUMN "grain" TYPE smallint USING "grain" / 60`);
  }
}
