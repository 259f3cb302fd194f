import { MigrationInterface, QueryRunner } from 'typeorm';

export class ApiKeyExpiry1795900000000 implements MigrationInterface {
  name = 'ApiKeyExpiry1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "api_keys" ADD "expires_at" TIMESTAMP WITH TIME ZONE');
    // Every process keeps API keys and funnels in memory; these notifications, sent on commit by
    // whoever changes a row (a replica, the admin CLI, plain SQL, a cascade), drop its entries.
    // last_used_at is not listed: writing it changes nothing a cached key decides.
    await queryRunner.query(`
      CREATE FUNCTION api_keys_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('api_keys_changed', OLD.prefix);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER api_keys_notify_change
      AFTER UPDATE OF company_id, prefix, key_hash, permissions, revoked_at, expires_at OR DELETE ON api_keys
      FOR EACH ROW EXECUTE FUNCTION api_keys_notify_change()`);
    await queryRunner.query(`
      CREATE FUNCTION funnels_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('funnels_changed', OLD.id::text);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER funnels_notify_change AFTER UPDATE OR DELETE ON funnels
      FOR EACH ROW EXECUTE FUNCTION funnels_notify_change()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER funnels_notify_change ON funnels');
    await queryRunner.query('DROP FUNCTION funnels_notify_change()');
    await queryRunner.query('DROP TRIGGER api_keys_notify_change ON api_keys');
    await queryRunner.query('DROP FUNCTION api_keys_notify_change()');
    await queryRunner.query('ALTER TABLE "api_keys" DROP COLUMN "expires_at"');
  }
}
