import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The session rollups' `device` and `source` rows count each session's conversion, completion and
 * time to completion too (the `attribute` shape, session-definitions.ts), so a session KPI broken
 * down by device or source sums one row per value in each bucket instead of one per segment. The
 * rows are rebuilt from the stored sessions, as ingestion writes them from now on: one pass over
 * metric_sessions.
 *
 * Frozen: the statement is written out as the release computed it.
 */
/**
 * The `device` and `source` rows of every started session with that attribute set (not empty), at
 * each session grain, with the conversions, completions and time to completion (a completion
 * stamped before the start counts as immediate). Added to any row already there.
 */
export const DEVICE_AND_SOURCE_ROLLUPS = `INSERT INTO "metric_session_rollups" AS r
    ("funnel_id", "dimension", "grain", "bucket", "key", "sessions", "conversions", "completions", "completion_ms")
  SELECT m."funnel_id", a.dimension, g.grain,
         date_bin(make_interval(secs => g.grain), m."started_at", timestamptz 'epoch'), a.value,
         count(*),
         count(*) FILTER (WHERE m."converted_at" IS NOT NULL),
         count(*) FILTER (WHERE m."completed_at" IS NOT NULL),
         coalesce(sum(greatest(0, extract(epoch FROM m."completed_at") * 1000 - extract(epoch FROM m."started_at") * 1000)), 0)::bigint
  FROM "metric_sessions" m
  CROSS JOIN LATERAL (VALUES ('device', m."device"), ('source', m."utm_source")) AS a(dimension, value)
  CROSS JOIN (VALUES (86400), (3600), (900), (60)) AS g(grain)
  WHERE m."started_at" IS NOT NULL AND a.value <> ''
  GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT ("funnel_id", "dimension", "grain", "bucket", "key") DO UPDATE SET
    "sessions" = r."sessions" + EXCLUDED."sessions", "conversions" = r."conversions" + EXCLUDED."conversions",
    "completions" = r."completions" + EXCLUDED."completions", "completion_ms" = r."completion_ms" + EXCLUDED."completion_ms"`;

export class AttributeOutcomes1796490000000 implements MigrationInterface {
  name = 'AttributeOutcomes1796490000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_session_rollups" WHERE "dimension" IN ('device', 'source')`);
    await queryRunner.query(DEVICE_AND_SOURCE_ROLLUPS);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "metric_session_rollups" SET "conversions" = 0, "completions" = 0, "completion_ms" = 0
       WHERE "dimension" IN ('device', 'source')`,
    );
  }
}
