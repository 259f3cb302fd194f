import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sessions keep the utm medium and campaign of their start, and the session rollups gain the
 * `segment` dimension: sessions, conversions and completions per combination of device, utm
 * source, medium, campaign and A/B variant, which filtered and broken-down session figures sum.
 * Its key holds those values length-prefixed (segmentKey), at most 631 characters and 2431 bytes
 * whatever they are, hence the longer key, still well within a btree index row. Both are computed
 * from what is stored, as ingestion would have written them.
 *
 * Frozen: the statements are written out as the release computed them, so no later change to the
 * service alters what this migration does.
 */
// Each session's medium and campaign, from its earliest session_start (found by the event's key).
export const FILL_UTM_MEDIUM_AND_CAMPAIGN = `UPDATE "metric_sessions" m
  SET "utm_medium" = e."payload" -> 'utm' ->> 'medium', "utm_campaign" = e."payload" -> 'utm' ->> 'campaign'
  FROM "metric_events" e
  WHERE e."funnel_id" = m."funnel_id" AND e."type" = 'session_start'
    AND e."occurred_at" = m."started_at" AND e."event_id" = m."start_event_id"`;

/**
 * The `segment` rows of every started session at each session grain (a day, an hour, a quarter hour,
 * a minute), under the key `<length>:<value>` (or `-` when unset) of device, utm source, A/B
 * variant, utm medium and campaign, with the conversions, completions and time to completion
 * (a completion stamped before the start counts as immediate). Added to any row already there.
 */
export const SEGMENT_SESSION_ROLLUPS = `INSERT INTO "metric_session_rollups" AS r
    ("funnel_id", "dimension", "grain", "bucket", "key", "sessions", "conversions", "completions", "completion_ms")
  SELECT m."funnel_id", 'segment', g.grain,
         date_bin(make_interval(secs => g.grain), m."started_at", timestamptz 'epoch'),
         coalesce(length(m."device") || ':' || m."device", '-')
           || coalesce(length(m."utm_source") || ':' || m."utm_source", '-')
           || coalesce(length(m."ab_variant") || ':' || m."ab_variant", '-')
           || coalesce(length(m."utm_medium") || ':' || m."utm_medium", '-')
           || coalesce(length(m."utm_campaign") || ':' || m."utm_campaign", '-'),
         count(*),
         count(*) FILTER (WHERE m."converted_at" IS NOT NULL),
         count(*) FILTER (WHERE m."completed_at" IS NOT NULL),
         coalesce(sum(greatest(0, extract(epoch FROM m."completed_at") * 1000 - extract(epoch FROM m."started_at") * 1000)), 0)::bigint
  FROM "metric_sessions" m CROSS JOIN (VALUES (86400), (3600), (900), (60)) AS g(grain)
  WHERE m."started_at" IS NOT NULL
  GROUP BY 1, 3, 4, 5
  ON CONFLICT ("funnel_id", "dimension", "grain", "bucket", "key") DO UPDATE SET
    "sessions" = r."sessions" + EXCLUDED."sessions", "conversions" = r."conversions" + EXCLUDED."conversions",
    "completions" = r."completions" + EXCLUDED."completions", "completion_ms" = r."completion_ms" + EXCLUDED."completion_ms"`;

export class SessionSegments1796300000000 implements MigrationInterface {
  name = 'SessionSegments1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "metric_sessions" ADD "utm_medium" character varying(200)`);
    await queryRunner.query(`ALTER TABLE "metric_sessions" ADD "utm_campaign" character varying(200)`);
    await queryRunner.query(
      `ALTER TABLE "metric_session_rollups" ALTER COLUMN "key" TYPE character varying(1000)`,
    );
    await queryRunner.query(FILL_UTM_MEDIUM_AND_CAMPAIGN);
    await queryRunner.query(SEGMENT_SESSION_ROLLUPS);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_session_rollups" WHERE "dimension" = 'segment'`);
    await queryRunner.query(
      `ALTER TABLE "metric_session_rollups" ALTER COLUMN "key" TYPE character varying(600)`,
    );
    await queryRunner.query(`ALTER TABLE "metric_sessions" DROP COLUMN "utm_campaign"`);
    await queryRunner.query(`ALTER TABLE "metric_sessions" DROP COLUMN "utm_medium"`);
  }
}
