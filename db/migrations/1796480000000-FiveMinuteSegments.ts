import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every whole five minutes of each funnel's folded minutes (before `folded_to`): the minute rows
 * of each segment inside it summed, as the fold writes a coarser row. Pages viewed and answers
 * (`sessions`) add per dimension and key; page views and clicks (`events`, cells of [events, timed,
 * total ms, label, its epoch ms]) add their counts and keep the latest label (at equal times the
 * greater by bytes). The rows have only these two documents at this migration's turn.
 */
export const FIVE_MINUTE_ROWS = `WITH minutes AS (
    SELECT r.*, date_bin(interval '300 seconds', r."bucket", timestamptz 'epoch') AS five
    FROM "metric_segment_rollups" r JOIN "metric_segment_folds" f ON f."funnel_id" = r."funnel_id"
    WHERE f."folded_to" IS NOT NULL AND r."grain" = 60 AND r."bucket" < f."folded_to"
      AND date_bin(interval '300 seconds', r."bucket", timestamptz 'epoch') + interval '300 seconds' <= f."folded_to"
  ), counted AS (
    SELECT "funnel_id", five, "segment", dimension, jsonb_object_agg(key, n) AS keys
    FROM (SELECT m."funnel_id", m.five, m."segment", d.key AS dimension, k.key, sum(k.value::numeric) AS n
          FROM minutes m, jsonb_each(m."sessions") AS d, jsonb_each(d.value) AS k
          GROUP BY 1, 2, 3, 4, 5) AS k
    GROUP BY 1, 2, 3, 4
  ), sessions AS (
    SELECT "funnel_id", five, "segment", jsonb_object_agg(dimension, keys) AS doc FROM counted GROUP BY 1, 2, 3
  ), cells AS (
    SELECT m."funnel_id", m.five, m."segment", d.key AS dimension, k.key, k.value AS cell
    FROM minutes m, jsonb_each(m."events") AS d, jsonb_each(d.value) AS k
  ), merged AS (
    SELECT "funnel_id", five, "segment", dimension, key,
           jsonb_build_array(sum((cell ->> 0)::numeric), sum((cell ->> 1)::numeric), sum((cell ->> 2)::numeric),
             (array_agg(cell -> 3 ORDER BY (cell ->> 4)::numeric DESC, (cell ->> 3) COLLATE "C" DESC)
                FILTER (WHERE cell ->> 3 IS NOT NULL AND cell ->> 4 IS NOT NULL))[1],
             (array_agg(cell -> 4 ORDER BY (cell ->> 4)::numeric DESC, (cell ->> 3) COLLATE "C" DESC)
                FILTER (WHERE cell ->> 3 IS NOT NULL AND cell ->> 4 IS NOT NULL))[1]) AS cell
    FROM cells GROUP BY 1, 2, 3, 4, 5
  ), events AS (
    SELECT "funnel_id", five, "segment", jsonb_object_agg(dimension, keys) AS doc
    FROM (SELECT "funnel_id", five, "segment", dimension, jsonb_object_agg(key, cell) AS keys FROM merged GROUP BY 1, 2, 3, 4) AS d
    GROUP BY 1, 2, 3
  ), fives AS (
    SELECT DISTINCT ON ("funnel_id", five, "segment") "funnel_id", five, "segment",
           "device", "utm_source", "ab_variant", "utm_medium", "utm_campaign"
    FROM minutes ORDER BY "funnel_id", five, "segment"
  )
  INSERT INTO "metric_segment_rollups" AS r
    ("funnel_id", "grain", "bucket", "segment", "device", "utm_source", "ab_variant", "utm_medium", "utm_campaign", "sessions", "events")
  SELECT f."funnel_id", 300, f.five, f."segment", f."device", f."utm_source", f."ab_variant", f."utm_medium", f."utm_campaign",
         coalesce(s.doc, '{}'), coalesce(e.doc, '{}')
  FROM fives f
  LEFT JOIN sessions s ON s."funnel_id" = f."funnel_id" AND s.five = f.five AND s."segment" = f."segment"
  LEFT JOIN events e ON e."funnel_id" = f."funnel_id" AND e.five = f.five AND e."segment" = f."segment"
  ON CONFLICT ("funnel_id", "grain", "bucket", "segment") DO UPDATE SET "sessions" = EXCLUDED."sessions", "events" = EXCLUDED."events"
  WHERE (r."sessions", r."events") IS DISTINCT FROM (EXCLUDED."sessions", EXCLUDED."events")`;

/**
 * The segment rollups gain five-minute rows (SEGMENT_GRAINS), so that a filtered read sums fewer
 * minute rows at its edges. The fold job writes them from now on; here they are summed from the
 * stored minute rows of every whole five minutes already folded, as the job would have written
 * them, so reads find them everywhere at once (nothing is folded again from raw rows). The folds'
 * rows are locked meanwhile (the job passes over a funnel another holds).
 *
 * Frozen: the statements are written out, with the columns the table has at this turn.
 */
export class FiveMinuteSegments1796480000000 implements MigrationInterface {
  name = 'FiveMinuteSegments1796480000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `SELECT "funnel_id" FROM "metric_segment_folds" WHERE "folded_to" IS NOT NULL ORDER BY "funnel_id" FOR UPDATE`,
    );
    await queryRunner.query(FIVE_MINUTE_ROWS);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "metric_segment_rollups" WHERE "grain" = 300`);
  }
}
