import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Typed custom properties: a definition per (funnel, property name), and the values of unique
 * properties kept apart under a primary key so no two contacts of a funnel share one.
 */
export class ContactPropertyDefinitions1796100000000 implements MigrationInterface {
  name = 'ContactPropertyDefinitions1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "contact_property_definitions" ("funnel_id" uuid NOT NULL, "name" character varying(64) NOT NULL, "type" character varying(16) NOT NULL, "options" jsonb, "unique" boolean NOT NULL DEFAULT false, "label" character varying(200), "description" character varying(2000), "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e3eb59056e7f46e1a6c3056a66d" PRIMARY KEY ("funnel_id", "name"))',
    );
    await queryRunner.query(
      'CREATE TABLE "contact_unique_values" ("funnel_id" uuid NOT NULL, "property_name" character varying(64) NOT NULL, "value_key" bytea NOT NULL, "contact_id" uuid NOT NULL, CONSTRAINT "PK_a9d5a1f7e601521c8600feaf122" PRIMARY KEY ("funnel_id", "property_name", "value_key"))',
    );
    await queryRunner.query(
      'ALTER TABLE "contact_property_definitions" ADD CONSTRAINT "FK_b57ca31918c2614966d5321077a" FOREIGN KEY ("funnel_id") REFERENCES "funnels"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "contact_unique_values" ADD CONSTRAINT "FK_d04c8bb11dd2048b8fe1d5b0bc1" FOREIGN KEY ("funnel_id", "property_name") REFERENCES "contact_property_definitions"("funnel_id","name") ON DELETE CASCADE ON UPDATE CASCADE',
    );

    // Writers of a funnel's properties hold this lock shared; a change of its definitions holds it
    // alone, so a definition never appears between a writer's check and its commit.
    await queryRunner.query(`
      CREATE FUNCTION contact_properties_lock_key(funnel uuid) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
        SELECT hashtextextended('contact_properties:' || funnel::text, 0)
      $$`);
    // contact_unique_values follows the contacts' values of unique properties whoever writes them;
    // its primary key refuses a second contact with the same value (unique_violation).
    await queryRunner.query(`
      CREATE FUNCTION contact_unique_values_add() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(f.funnel_id))
        FROM (SELECT DISTINCT funnel_id FROM inserted_contacts WHERE properties <> '{}' ORDER BY 1) f;
        INSERT INTO contact_unique_values (funnel_id, property_name, value_key, contact_id)
        SELECT c.funnel_id, d.name, sha256(convert_to(c.properties ->> d.name, 'UTF8')), c.id
        FROM inserted_contacts c
        JOIN contact_property_definitions d ON d.funnel_id = c.funnel_id AND d."unique"
        WHERE c.properties <> '{}' AND c.properties ->> d.name IS NOT NULL;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION contact_unique_values_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(NEW.funnel_id));
        DELETE FROM contact_unique_values u USING contact_property_definitions d
        WHERE d.funnel_id = OLD.funnel_id AND d."unique" AND u.funnel_id = d.funnel_id
          AND u.property_name = d.name AND u.contact_id = OLD.id
          AND u.value_key = sha256(convert_to(OLD.properties ->> d.name, 'UTF8'))
          AND (OLD.properties -> d.name) IS DISTINCT FROM (NEW.properties -> d.name);
        INSERT INTO contact_unique_values (funnel_id, property_name, value_key, contact_id)
        SELECT NEW.funnel_id, d.name, sha256(convert_to(NEW.properties ->> d.name, 'UTF8')), NEW.id
        FROM contact_property_definitions d
        WHERE d.funnel_id = NEW.funnel_id AND d."unique" AND NEW.properties ->> d.name IS NOT NULL
          AND (OLD.properties -> d.name) IS DISTINCT FROM (NEW.properties -> d.name);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION contact_unique_values_remove() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM contact_unique_values u USING deleted_contacts c, contact_property_definitions d
        WHERE d.funnel_id = c.funnel_id AND d."unique" AND c.properties ->> d.name IS NOT NULL
          AND u.funnel_id = d.funnel_id AND u.property_name = d.name
          AND u.value_key = sha256(convert_to(c.properties ->> d.name, 'UTF8')) AND u.contact_id = c.id;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      'CREATE TRIGGER contacts_unique_values_insert AFTER INSERT ON contacts REFERENCING NEW TABLE AS inserted_contacts FOR EACH STATEMENT EXECUTE FUNCTION contact_unique_values_add()',
    );
    await queryRunner.query(
      'CREATE TRIGGER contacts_unique_values_update AFTER UPDATE OF properties ON contacts FOR EACH ROW WHEN (OLD.properties IS DISTINCT FROM NEW.properties) EXECUTE FUNCTION contact_unique_values_change()',
    );
    await queryRunner.query(
      'CREATE TRIGGER contacts_unique_values_delete AFTER DELETE ON contacts REFERENCING OLD TABLE AS deleted_contacts FOR EACH STATEMENT EXECUTE FUNCTION contact_unique_values_remove()',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER contacts_unique_values_delete ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_unique_values_update ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_unique_values_insert ON contacts');
    await queryRunner.query('DROP FUNCTION contact_unique_values_remove()');
    await queryRunner.query('DROP FUNCTION contact_unique_values_change()');
    await queryRunner.query('DROP FUNCTION contact_unique_values_add()');
    await queryRunner.query('DROP FUNCTION contact_properties_lock_key(uuid)');
    await queryRunner.query(
      'ALTER TABLE "contact_unique_values" DROP CONSTRAINT "FK_d04c8bb11dd2048b8fe1d5b0bc1"',
    );
    await queryRunner.query(
      'ALTER TABLE "contact_property_definitions" DROP CONSTRAINT "FK_b57ca31918c2614966d5321077a"',
    );
    await queryRunner.query('DROP TABLE "contact_unique_values"');
    await queryRunner.query('DROP TABLE "contact_property_definitions"');
  }
}
