import { MigrationInterface, QueryRunner } from 'typeorm';

export class ApiKeyInsertNotifications1796600000000 implements MigrationInterface {
  name = 'ApiKeyInsertNotifications1796600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Every process now remembers prefixes no key has, so a flood of unknown keys costs one lookup
    // each; a key inserted with such a prefix (by any replica, the admin CLI or plain SQL) must
    // drop that memory at once, so inserts notify too, with the new row's prefix.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION api_keys_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('api_keys_changed', OLD.prefix); END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.prefix <> OLD.prefix) THEN
          PERFORM pg_notify('api_keys_changed', NEW.prefix);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query('DROP TRIGGER api_keys_notify_change ON api_keys');
    await queryRunner.query(`
      CREATE TRIGGER api_keys_notify_change
      AFTER INSERT OR UPDATE OF company_id, prefix, key_hash, permissions, revoked_at, expires_at OR DELETE
      ON api_keys FOR EACH ROW EXECUTE FUNCTION api_keys_notify_change()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER api_keys_notify_change ON api_keys');
    await queryRunner.query(`
      CREATE TRIGGER api_keys_notify_change
      AFTER UPDATE OF company_id, prefix, key_hash, permissions, revoked_at, expires_at OR DELETE ON api_keys
      FOR EACH ROW EXECUTE FUNCTION api_keys_notify_change()`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION api_keys_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('api_keys_changed', OLD.prefix);
        RETURN NULL;
      END $$`);
  }
}
