import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Browser collection: a funnel's settings (off, no origin allowed) and the daily salts visitor ids
 * are derived from.
 */
export class BrowserCollection1796620000000 implements MigrationInterface {
  name = 'BrowserCollection1796620000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "funnels" ADD "collection_enabled" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `ALTER TABLE "funnels" ADD "collection_origins" text array NOT NULL DEFAULT '{}'`,
    );
    await queryRunner.query(
      `CREATE TABLE "collection_salts" ("day" date NOT NULL, "salt" bytea NOT NULL, CONSTRAINT "PK_bb243a425c2f9dfe9242305f474" PRIMARY KEY ("day"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "collection_salts"`);
    await queryRunner.query(`ALTER TABLE "funnels" DROP COLUMN "collection_origins"`);
    await queryRunner.query(`ALTER TABLE "funnels" DROP COLUMN "collection_enabled"`);
  }
}
