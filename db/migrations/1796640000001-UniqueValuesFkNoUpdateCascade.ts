import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A unique value's foreign key to its property definition no longer cascades an update: a
 * definition's name is never changed (its key in every route), so the cascade never fired, and
 * Citus refuses ON UPDATE CASCADE over a distribution column, which this key includes.
 */
export class UniqueValuesFkNoUpdateCascade1796640000001 implements MigrationInterface {
  name = 'UniqueValuesFkNoUpdateCascade1796640000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "contact_unique_values" DROP CONSTRAINT "FK_d04c8bb11dd2048b8fe1d5b0bc1"',
    );
    await queryRunner.query(
      'ALTER TABLE "contact_unique_values" ADD CONSTRAINT "FK_d04c8bb11dd2048b8fe1d5b0bc1" FOREIGN KEY ("funnel_id", "property_name") REFERENCES "contact_property_definitions"("funnel_id","name") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "contact_unique_values" DROP CONSTRAINT "FK_d04c8bb11dd2048b8fe1d5b0bc1"',
    );
    await queryRunner.query(
      'ALTER TABLE "contact_unique_values" ADD CONSTRAINT "FK_d04c8bb11dd2048b8fe1d5b0bc1" FOREIGN KEY ("funnel_id", "property_name") REFERENCES "contact_property_definitions"("funnel_id","name") ON DELETE CASCADE ON UPDATE CASCADE',
    );
  }
}
