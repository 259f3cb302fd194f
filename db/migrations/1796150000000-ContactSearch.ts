import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contact search: starts_with on email is a range of a pattern index on the lower-cased email
 * (equality keeps idx_contacts_filter_email), and a custom property's eq, in and exists are
 * containment and key tests that a GIN index on properties answers.
 */
export class ContactSearch1796150000000 implements MigrationInterface {
  name = 'ContactSearch1796150000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_search_email_prefix" ON "contacts" ("funnel_id", lower("email") text_pattern_ops)',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_search_properties" ON "contacts" USING gin ("properties")',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."idx_contacts_search_properties"');
    await queryRunner.query('DROP INDEX "public"."idx_contacts_search_email_prefix"');
  }
}
