import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Segment rollups folded after ingestion (docs/METRICS.md, "How it stays fast"): the packed rows
 * per funnel, bucket and segment, each funnel's watermarks, and the changes ingestion records at
 * or before the seal. Empty at first: the folder fills them in the background, and until it has
 * folded a funnel its filtered figures read raw rows as before.
 */
export class SegmentFolds1796430000000 implements MigrationInterface {
  name = 'SegmentFolds1796430000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "metric_segment_changes" ("funnel_id" uuid NOT NULL, "seq" BIGSERIAL NOT NULL, "minute" TIMESTAMP WITH TIME ZONE, "session_id" character varying(128), CONSTRAINT "PK_58043508d0896551992db23b24c" PRIMARY KEY ("funnel_id", "seq"))',
    );
    await queryRunner.query(
      'CREATE TABLE "metric_segment_folds" ("funnel_id" uuid NOT NULL, "sealed_to" TIMESTAMP WITH TIME ZONE, "folded_to" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_a7318e66114e6f7167b7d74d9eb" PRIMARY KEY ("funnel_id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "metric_segment_rollups" ("funnel_id" uuid NOT NULL, "grain" integer NOT NULL, "bucket" TIMESTAMP WITH TIME ZONE NOT NULL, "segment" character varying(1000) NOT NULL, "device" character varying(8), "utm_source" character varying(200), "ab_variant" character varying(8), "utm_medium" character varying(200), "utm_campaign" character varying(200), "sessions" jsonb NOT NULL DEFAULT \'{}\', "events" jsonb NOT NULL DEFAULT \'{}\', CONSTRAINT "PK_4169a1faef04330ac3c465709e4" PRIMARY KEY ("funnel_id", "grain", "bucket", "segment"))',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "metric_segment_rollups"');
    await queryRunner.query('DROP TABLE "metric_segment_folds"');
    await queryRunner.query('DROP TABLE "metric_segment_changes"');
  }
}
