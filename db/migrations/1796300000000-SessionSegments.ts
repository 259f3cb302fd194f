import { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillSessionDimensions, backfillStartAttribute, RunSql } from '@app/metrics';

/**
 * Sessions keep the utm medium and campaign of their start, and the session rollups gain the
 * `segment` dimension: sessions, conversions and completions per combination of device, utm
 * source, medium, campaign and A/B variant, which filtered and broken-down session figures sum.
 * Its key holds those values length-prefixed (segmentKey), at most 631 characters and 2431 bytes
 * whatever they are, hence the longer key, still well within a btree index row. Both are computed
 * from what is stored, as ingestion would have written them.
 */
export class SessionSegments1796300000000 implements MigrationInterface {
  name = 'SessionSegments1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "metric_sessions" ADD "utm_medium" character varying(200)`);
    await queryRunner.query(`ALTER TABLE "metric_sessions" ADD "utm_campaign" character varying(200)`);
    await queryRunner.query(
      `ALTER TABLE "metric_session_rollups" ALTER COLUMN "key" TYPE character varying(1000)`,
    );
    const run: RunSql = (sql, params) => queryRunner.query(sql, params);
    await backfillStartAttribute(run, 'utmMedium');
    await backfillStartAttribute(run, 'utmCampaign');
    await backfillSessionDimensions(run, ['segment']);
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
