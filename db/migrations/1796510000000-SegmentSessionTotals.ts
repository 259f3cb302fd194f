import { MigrationInterface, QueryRunner } from 'typeorm';
import { SEGMENT_SESSION_ROLLUPS } from './1796300000000-SessionSegments';

const TOTALS = ['started', 'conversions', 'completions', 'completion_ms'];

/**
 * The totals of every whole bucket (a day, an hour, a quarter hour, five minutes, a minute; ten
 * seconds from the fold's `finest_from` on) of each funnel's folded minutes, from the sessions
 * started in it: sessions, conversions, completions and time to completion (a completion stamped
 * before the start counts as immediate). A stored row gets its totals; a row the fold would have
 * written for sessions alone, and that is missing, is inserted with what it counts of pages viewed
 * (`page`, and `page:<variant>` when the session has one) and of each question's latest answers
 * (`answer:<question>` per distinct answer, `answer-group:<question>` all of them joined by "; " in
 * the order first given).
 */
export const SEGMENT_TOTALS = `WITH started AS (
    SELECT m.*, f."folded_to", f."finest_from",
           coalesce(length(m."device") || ':' || m."device", '-')
             || coalesce(length(m."utm_source") || ':' || m."utm_source", '-')
             || coalesce(length(m."ab_variant") || ':' || m."ab_variant", '-')
             || coalesce(length(m."utm_medium") || ':' || m."utm_medium", '-')
             || coalesce(length(m."utm_campaign") || ':' || m."utm_campaign", '-') AS segment
    FROM "metric_sessions" m JOIN "metric_segment_folds" f ON f."funnel_id" = m."funnel_id"
    WHERE f."folded_to" IS NOT NULL AND m."started_at" < f."folded_to"
  ), bucketed AS (
    SELECT s.*, g.grain, date_bin(make_interval(secs => g.grain), s."started_at", timestamptz 'epoch') AS bucket
    FROM started s CROSS JOIN (VALUES (86400), (3600), (900), (300), (60), (10)) AS g(grain)
  ), whole AS (
    SELECT * FROM bucketed b
    WHERE b.bucket + make_interval(secs => b.grain) <= b."folded_to"
      AND (b.grain <> 10 OR b."finest_from" IS NULL OR b.bucket >= b."finest_from")
  ), totals AS (
    SELECT "funnel_id", grain, bucket, segment, "device", "utm_source", "ab_variant", "utm_medium", "utm_campaign",
           count(*) AS started,
           count(*) FILTER (WHERE "converted_at" IS NOT NULL) AS conversions,
           count(*) FILTER (WHERE "completed_at" IS NOT NULL) AS completions,
           coalesce(sum(greatest(0, extract(epoch FROM "completed_at") * 1000 - extract(epoch FROM "started_at") * 1000)), 0)::bigint
             AS completion_ms
    FROM whole GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
  ), kept AS (
    SELECT w."funnel_id", w.grain, w.bucket, w.segment, 'page' AS dimension, p.slug AS key
    FROM whole w CROSS JOIN unnest(w."pages") AS p(slug)
    UNION ALL
    SELECT w."funnel_id", w.grain, w.bucket, w.segment, 'page:' || w."ab_variant", p.slug
    FROM whole w CROSS JOIN unnest(w."pages") AS p(slug) WHERE w."ab_variant" <> ''
    UNION ALL
    SELECT w."funnel_id", w.grain, w.bucket, w.segment, 'answer:' || q.question, a.answer
    FROM whole w CROSS JOIN jsonb_each(w."answers") AS q(question, latest)
    CROSS JOIN LATERAL (SELECT DISTINCT x.answer FROM jsonb_array_elements_text(q.latest -> 'answers') AS x(answer)) AS a
    UNION ALL
    SELECT w."funnel_id", w.grain, w.bucket, w.segment, 'answer-group:' || q.question,
           coalesce((SELECT string_agg(d.answer, '; ' ORDER BY d.first)
                     FROM (SELECT x.answer, min(x.i) AS first
                           FROM jsonb_array_elements_text(q.latest -> 'answers') WITH ORDINALITY AS x(answer, i)
                           GROUP BY x.answer) AS d), '')
    FROM whole w CROSS JOIN jsonb_each(w."answers") AS q(question, latest)
  ), documents AS (
    SELECT "funnel_id", grain, bucket, segment, jsonb_object_agg(dimension, keys) AS doc
    FROM (SELECT "funnel_id", grain, bucket, segment, dimension, jsonb_object_agg(key, n) AS keys
          FROM (SELECT "funnel_id", grain, bucket, segment, dimension, key, count(*) AS n FROM kept GROUP BY 1, 2, 3, 4, 5, 6) AS k
          GROUP BY 1, 2, 3, 4, 5) AS d
    GROUP BY 1, 2, 3, 4
  )
  INSERT INTO "metric_segment_rollups" AS r
    ("funnel_id", "grain", "bucket", "segment", "device", "utm_source", "ab_variant", "utm_medium", "utm_campaign",
     "started", "conversions", "completions", "completion_ms", "sessions", "events")
  SELECT t."funnel_id", t.grain, t.bucket, t.segment, t."device", t."utm_source", t."ab_variant", t."utm_medium", t."utm_campaign",
         t.started, t.conversions, t.completions, t.completion_ms, coalesce(d.doc, '{}'), '{}'
  FROM totals t
  LEFT JOIN documents d ON d."funnel_id" = t."funnel_id" AND d.grain = t.grain AND d.bucket = t.bucket AND d.segment = t.segment
  ON CONFLICT ("funnel_id", "grain", "bucket", "segment") DO UPDATE SET
    "started" = EXCLUDED."started", "conversions" = EXCLUDED."conversions",
    "completions" = EXCLUDED."completions", "completion_ms" = EXCLUDED."completion_ms"
  WHERE (r."started", r."conversions", r."completions", r."completion_ms")
    IS DISTINCT FROM (EXCLUDED."started", EXCLUDED."conversions", EXCLUDED."completions", EXCLUDED."completion_ms")`;

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
 * The folds' rows are locked meanwhile (the job passes over a funnel another holds).
 *
 * Frozen: the statements are written out as the release computed them.
 */
export class SegmentSessionTotals1796510000000 implements MigrationInterface {
  name = 'SegmentSessionTotals1796510000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "metric_segment_rollups" ADD "started" integer NOT NULL DEFAULT 0,
         ADD "conversions" integer NOT NULL DEFAULT 0, ADD "completions" integer NOT NULL DEFAULT 0,
         ADD "completion_ms" bigint NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(
      `SELECT "funnel_id" FROM "metric_segment_folds" WHERE "folded_to" IS NOT NULL ORDER BY "funnel_id" FOR UPDATE`,
    );
    await queryRunner.query(SEGMENT_TOTALS);
    await queryRunner.query(
      `ALTER TABLE "metric_segment_rollups" ${TOTALS.map((c) => `ALTER COLUMN "${c}" DROP DEFAULT`).join(', ')}`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_session_rollups" WHERE "dimension" = 'segment'`);
    await queryRunner.query(SEGMENT_SESSION_ROLLUPS);
    await queryRunner.query(
      `ALTER TABLE "metric_segment_rollups" ${TOTALS.map((c) => `DROP COLUMN "${c}"`).join(', ')}`,
    );
  }
}
