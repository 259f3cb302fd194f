import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Step summaries: one row per session with every time it reached a step key, which step funnels
 * read instead of joining events (docs/METRICS.md, "How it stays fast"), and each funnel's step
 * keys, numbered. Filled from the stored events and sessions; rewritten on every batch that
 * touches a session, hence the fill factor that leaves room for HOT updates, as metric_sessions.
 *
 * Frozen: the statements are written out as the release computed them.
 */
// A step event's key: page:<slug>, click:<button>, answer:<question>, conversion, completion.
const STEP_KEY = `CASE e."type" WHEN 'page_view' THEN 'page:' || e."key" WHEN 'button_click' THEN 'click:' || e."key" WHEN 'answer' THEN 'answer:' || (e."payload" ->> 'questionId') WHEN 'conversion' THEN 'conversion' WHEN 'completion' THEN 'completion' END`;
const STEP_TYPES = `('page_view', 'button_click', 'answer', 'conversion', 'completion')`;
// A mark: the key's number times 2^42 plus the event's time in ms since 2000-01-01 (946684800000).
const MARK = `k."id" * 4398046511104 + ((extract(epoch FROM e."occurred_at") * 1000)::bigint - 946684800000)`;

/**
 * The step keys of each funnel numbered in key order, then one summary per session with a step
 * event: its start, filter attributes and marks (keys numbered up to 2^21 - 1). Raw events already
 * dropped by retention cannot contribute.
 */
export const FILL_STEP_SUMMARIES = [
  `INSERT INTO "metric_step_keys" ("funnel_id", "key", "id")
   SELECT "funnel_id", "key", row_number() OVER (PARTITION BY "funnel_id" ORDER BY "key")
   FROM (SELECT DISTINCT e."funnel_id", ${STEP_KEY} AS "key" FROM "metric_events" e WHERE e."type" IN ${STEP_TYPES}) AS k`,
  `INSERT INTO "metric_session_steps" ("funnel_id", "session_id", "started_ms", "device", "utm_source", "ab_variant", "utm_medium", "utm_campaign", "marks")
   SELECT g."funnel_id", g."session_id", (extract(epoch FROM m."started_at") * 1000)::bigint - 946684800000,
          m."device", m."utm_source", m."ab_variant", m."utm_medium", m."utm_campaign", g.marks
   FROM (
     SELECT e."funnel_id", e."session_id", array_agg(DISTINCT ${MARK} ORDER BY ${MARK}) AS marks
     FROM "metric_events" e
     JOIN "metric_step_keys" k ON k."funnel_id" = e."funnel_id" AND k."key" = ${STEP_KEY} AND k."id" <= 2097151
     WHERE e."type" IN ${STEP_TYPES}
     GROUP BY e."funnel_id", e."session_id"
   ) AS g
   LEFT JOIN "metric_sessions" m ON m."funnel_id" = g."funnel_id" AND m."session_id" = g."session_id"`,
];

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
    for (const sql of FILL_STEP_SUMMARIES) await queryRunner.query(sql);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "metric_step_keys"`);
    await queryRunner.query(`DROP TABLE "metric_session_steps"`);
  }
}
