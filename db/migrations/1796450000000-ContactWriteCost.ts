import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Less work per written contact, same results (docs/BENCHMARKS.md, "Batch upsert"):
 * idx_contacts_filter_email goes: idx_contacts_search_email_prefix has the same key
 * (funnel_id, lower(email)) and its text_pattern_ops serves `=` and `= ANY` too, so every contact
 * written no longer feeds a second copy of it.
 */
export class ContactWriteCost1796450000000 implements MigrationInterface {
  name = 'ContactWriteCost1796450000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."idx_contacts_filter_email"');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_filter_email" ON "contacts" ("funnel_id", lower("email"))',
    );
  }
}
