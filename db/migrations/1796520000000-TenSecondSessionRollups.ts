import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The session rollups get ten-second rows, which the fold writes from the sessions of the minutes
 * it folds (ingestion keeps writing the minute and coarser rows): an edge of a session figure reads
 * them where its minute is folded and unchanged, instead of half a minute of sessions. They are
 * computed here for the folded minutes from `finest_from` on, as the fold would have.
 *
 * The segment rollups get `fold_version`, without a default: a fold of the previous release, which
 * would fold a late change without rewriting the ten-second session rows of its minute, fails
 * instead of writing, and the new pods fold those minutes.
 *
 * The session rollups' `segment` rows, kept by SegmentSessionTotals for the release before it and
 * read by none since, are deleted; that migration's down rebuilds them. The folds' rows are locked
 * meanwhile (the job passes over a funnel another holds).
 *
 * Frozen: the statements are written out as the release computed them.
 */
// A completion stamped before its session_start counts as immediate.
const COMPLETION_MS = `greatest(0, extract(epoch FROM m."completed_at") * 1000 - extract(epoch FROM m."started_at") * 1000)`;

/**
 * The ten-second session rows of each funnel's folded minutes from `finest_from` on, from the
 * sessions started in them, in every dimension the session rollups hold: `all` (key ''), `device`
 * and `source` (when set, not empty) with conversions, completions and time to completion; `page`
 * per page viewed and `page:<variant>` when the session has a variant; per question,
 * `answer:<question>` per distinct latest answer and `answer-group:<question>` for all of them
 * joined by "; " in the order first given. Added to any row already there.
 */
export const TEN_SECOND_SESSION_ROWS = `WITH m AS (
    SELECT m.*, date_bin(interval '10 seconds', m."started_at", timestamptz 'epoch') AS bucket
    FROM "metric_sessions" m JOIN "metric_segment_folds" f ON f."funnel_id" = m."funnel_id"
    WHERE f."folded_to" IS NOT NULL AND m."started_at" < f."folded_to"
      AND (f."finest_from" IS NULL OR m."started_at" >= f."finest_from")
  ), counted (funnel_id, bucket, dimension, key, converted, completed, completion_ms) AS (
    SELECT m."funnel_id", m.bucket, 'all', '', m."converted_at" IS NOT NULL, m."completed_at" IS NOT NULL, ${COMPLETION_MS} FROM m
    UNION ALL
    SELECT m."funnel_id", m.bucket, 'device', m."device", m."converted_at" IS NOT NULL, m."completed_at" IS NOT NULL, ${COMPLETION_MS}
    FROM m WHERE m."device" <> ''
    UNION ALL
    SELECT m."funnel_id", m.bucket, 'source', m."utm_source", m."converted_at" IS NOT NULL, m."completed_at" IS NOT NULL, ${COMPLETION_MS}
    FROM m WHERE m."utm_source" <> ''
    UNION ALL
    SELECT m."funnel_id", m.bucket, 'page', p.slug, false, false, NULL FROM m CROSS JOIN unnest(m."pages") AS p(slug)
    UNION ALL
    SELECT m."funnel_id", m.bucket, 'page:' || m."ab_variant", p.slug, false, false, NULL
    FROM m CROSS JOIN unnest(m."pages") AS p(slug) WHERE m."ab_variant" <> ''
    UNION ALL
    SELECT m."funnel_id", m.bucket, 'answer:' || q.question, a.answer, false, false, NULL
    FROM m CROSS JOIN jsonb_each(m."answers") AS q(question, latest)
    CROSS JOIN LATERAL (SELECT DISTINCT x.answer FROM jsonb_array_elements_text(q.latest -> 'answers') AS x(answer)) AS a
    UNION ALL
    SELECT m."funnel_id", m.bucket, 'answer-group:' || q.question,
           coalesce((SELECT string_agg(d.answer, '; ' ORDER BY d.first)
                     FROM (SELECT x.answer, min(x.i) AS first
                           FROM jsonb_array_elements_text(q.latest -> 'answers') WITH ORDINALITY AS x(answer, i)
                           GROUP BY x.answer) AS d), ''),
           false, false, NULL
    FROM m CROSS JOIN jsonb_each(m."answers") AS q(question, latest)
  )
  INSERT INTO "metric_session_rollups" AS r
    ("funnel_id", "dimension", "grain", "bucket", "key", "sessions", "conversions", "completions", "completion_ms")
  SELECT funnel_id, dimension, 10, bucket, key, count(*), count(*) FILTER (WHERE converted),
         count(*) FILTER (WHERE completed), coalesce(sum(completion_ms) FILTER (WHERE completed), 0)::bigint
  FROM counted GROUP BY funnel_id, dimension, bucket, key
  ON CONFLICT ("funnel_id", "dimension", "grain", "bucket", "key") DO UPDATE SET
    "sessions" = r."sessions" + EXCLUDED."sessions", "conversions" = r."conversions" + EXCLUDED."conversions",
    "completions" = r."completions" + EXCLUDED."completions", "completion_ms" = r."completion_ms" + EXCLUDED."completion_ms"`;

export class TenSecondSessionRollups1796520000000 implements MigrationInterface {
  name = 'TenSecondSessionRollups1796520000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "metric_segment_rollups" ADD "fold_version" smallint NOT NULL DEFAULT 1`,
    );
    await queryRunner.query(`ALTER TABLE "metric_segment_rollups" ALTER COLUMN "fold_version" DROP DEFAULT`);
    await queryRunner.query(`DELETE FROM "metric_session_rollups" WHERE "dimension" = 'segment'`);
    await queryRunner.query(
      `SELECT "funnel_id" FROM "metric_segment_folds" WHERE "folded_to" IS NOT NULL ORDER BY "funnel_id" FOR UPDATE`,
    );
    await queryRunner.query(TEN_SECOND_SESSION_ROWS);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_session_rollups" WHERE "grain" = 10`);
    await queryRunner.query(`ALTER TABLE "metric_segment_rollups" DROP COLUMN "fold_version"`);
  }
}
