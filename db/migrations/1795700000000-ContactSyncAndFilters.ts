import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The contacts list gains sortField=updatedAt and the email, phone, status, updatedAfter and
 * createdAfter filters, each served by an index; updated_at moves on every write to a contact
 * and on every message recorded for it, whoever writes (API, MCP, automations, bulk loads).
 */
export class ContactSyncAndFilters1795700000000 implements MigrationInterface {
  name = 'ContactSyncAndFilters1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Milliseconds, as the API shows them (generated from Contact).
    await queryRunner.query(
      'ALTER TABLE "contacts" ALTER COLUMN "created_at" TYPE TIMESTAMP(3) WITH TIME ZONE',
    );
    await queryRunner.query(
      'ALTER TABLE "contacts" ALTER COLUMN "updated_at" TYPE TIMESTAMP(3) WITH TIME ZONE',
    );
    // Sort index like the others (see Contact); it also serves updatedAfter.
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_sort_updated_at" ON "contacts" ("funnel_id", "updated_at" NULLS FIRST, "id")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_filter_email" ON "contacts" ("funnel_id", lower("email"))',
    );
    // The same expression as the list's phone filter, so only digits are compared.
    await queryRunner.query(
      `CREATE INDEX "idx_contacts_filter_phone" ON "contacts" ("funnel_id", regexp_replace("phone", '\\D', '', 'g'))`,
    );
    // Status with the default sort order, so the common "this status, newest first" is a range scan.
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_filter_status" ON "contacts" ("funnel_id", "status", "converted_at" NULLS FIRST, "id")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_filter_created_at" ON "contacts" ("funnel_id", "created_at", "id")',
    );
    await queryRunner.query(`
      CREATE FUNCTION contacts_touch() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.updated_at := now();
        RETURN NEW;
      END $$`);
    await queryRunner.query(
      'CREATE TRIGGER contacts_touch BEFORE UPDATE ON contacts FOR EACH ROW EXECUTE FUNCTION contacts_touch()',
    );
    // A message is part of the contact (its messages member), so recording one is a change.
    await queryRunner.query(`
      CREATE FUNCTION contact_messages_touch_contact() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE contacts SET updated_at = now()
        WHERE id IN (SELECT DISTINCT contact_id FROM inserted_messages);
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      'CREATE TRIGGER contact_messages_touch_contact AFTER INSERT ON contact_messages REFERENCING NEW TABLE AS inserted_messages FOR EACH STATEMENT EXECUTE FUNCTION contact_messages_touch_contact()',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER contact_messages_touch_contact ON contact_messages');
    await queryRunner.query('DROP FUNCTION contact_messages_touch_contact()');
    await queryRunner.query('DROP TRIGGER contacts_touch ON contacts');
    await queryRunner.query('DROP FUNCTION contacts_touch()');
    await queryRunner.query('DROP INDEX "public"."idx_contacts_filter_created_at"');
    await queryRunner.query('DROP INDEX "public"."idx_contacts_filter_status"');
    await queryRunner.query('DROP INDEX "public"."idx_contacts_filter_phone"');
    await queryRunner.query('DROP INDEX "public"."idx_contacts_filter_email"');
    await queryRunner.query('DROP INDEX "public"."idx_contacts_sort_updated_at"');
    await queryRunner.query('ALTER TABLE "contacts" ALTER COLUMN "updated_at" TYPE TIMESTAMP WITH TIME ZONE');
    await queryRunner.query('ALTER TABLE "contacts" ALTER COLUMN "created_at" TYPE TIMESTAMP WITH TIME ZONE');
  }
}
