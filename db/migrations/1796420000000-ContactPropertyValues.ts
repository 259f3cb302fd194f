import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The values of number and date properties kept typed in contact_property_values, whose two
 * indexes serve a range search of any such property of any funnel. Triggers on contacts keep it
 * whoever writes (as they keep contact_unique_values); a definition's creation or change of type
 * rebuilds its rows (contact_property_values_rebuild), its deletion removes them (foreign key).
 */
export class ContactPropertyValues1796420000000 implements MigrationInterface {
  name = 'ContactPropertyValues1796420000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "contact_property_values" ("funnel_id" uuid NOT NULL, "property_name" character varying(64) NOT NULL, "contact_id" uuid NOT NULL, "number_value" numeric, "date_value" date, CONSTRAINT "PK_48d39741306853b88e60daf7288" PRIMARY KEY ("funnel_id", "property_name", "contact_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contact_property_values_date" ON "contact_property_values"  ("funnel_id", "property_name", "date_value", "contact_id") WHERE "date_value" IS NOT NULL',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contact_property_values_number" ON "contact_property_values"  ("funnel_id", "property_name", "number_value", "contact_id") WHERE "number_value" IS NOT NULL',
    );
    await queryRunner.query(
      'ALTER TABLE "contact_property_values" ADD CONSTRAINT "FK_2869f7549b3fd8e80a09bb90680" FOREIGN KEY ("funnel_id", "property_name") REFERENCES "contact_property_definitions"("funnel_id","name") ON DELETE CASCADE ON UPDATE CASCADE',
    );

    // A stored value as its type holds it, or null when it has none: never an error, so a value
    // written around the service's checks is left out rather than failing the write.
    await queryRunner.query(`
      CREATE FUNCTION contact_property_number(type text, value jsonb) RETURNS numeric
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT CASE WHEN type = 'number' AND jsonb_typeof(value) = 'number' THEN (value #>> '{}')::numeric END
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION contact_property_date(type text, value jsonb) RETURNS date
      LANGUAGE sql STABLE PARALLEL SAFE AS $$
        SELECT CASE WHEN type = 'date' AND jsonb_typeof(value) = 'string'
          AND value #>> '{}' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' AND pg_input_is_valid(value #>> '{}', 'date')
          THEN (value #>> '{}')::date END
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION contact_property_values_rebuild(funnel uuid, property text) RETURNS void
      LANGUAGE sql AS $$
        DELETE FROM contact_property_values v WHERE v.funnel_id = $1 AND v.property_name = $2;
        INSERT INTO contact_property_values (funnel_id, property_name, contact_id, number_value, date_value)
        SELECT t.funnel_id, t.name, t.id, t.n, t.dt FROM (
          SELECT c.funnel_id, d.name, c.id, contact_property_number(d.type, c.properties -> d.name) AS n,
                 contact_property_date(d.type, c.properties -> d.name) AS dt
          FROM contact_property_definitions d
          JOIN contacts c ON c.funnel_id = d.funnel_id AND c.properties ? d.name
          WHERE d.funnel_id = $1 AND d.name = $2 AND d.type IN ('number', 'date')) t
        WHERE t.n IS NOT NULL OR t.dt IS NOT NULL;
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION contact_property_values_add() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(f.funnel_id))
        FROM (SELECT DISTINCT funnel_id FROM inserted_contacts WHERE properties <> '{}' ORDER BY 1) f;
        INSERT INTO contact_property_values (funnel_id, property_name, contact_id, number_value, date_value)
        SELECT t.funnel_id, t.name, t.id, t.n, t.dt FROM (
          SELECT c.funnel_id, d.name, c.id, contact_property_number(d.type, c.properties -> d.name) AS n,
                 contact_property_date(d.type, c.properties -> d.name) AS dt
          FROM inserted_contacts c
          JOIN contact_property_definitions d ON d.funnel_id = c.funnel_id AND d.type IN ('number', 'date')
          WHERE c.properties <> '{}' AND c.properties ? d.name) t
        WHERE t.n IS NOT NULL OR t.dt IS NOT NULL;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION contact_property_values_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(NEW.funnel_id));
        WITH changed AS (
          SELECT d.name, contact_property_number(d.type, NEW.properties -> d.name) AS n,
                 contact_property_date(d.type, NEW.properties -> d.name) AS dt
          FROM contact_property_definitions d
          WHERE d.funnel_id = NEW.funnel_id AND d.type IN ('number', 'date')
            AND (OLD.properties -> d.name) IS DISTINCT FROM (NEW.properties -> d.name)
        ), gone AS (
          DELETE FROM contact_property_values v USING changed c
          WHERE v.funnel_id = NEW.funnel_id AND v.property_name = c.name AND v.contact_id = NEW.id
            AND c.n IS NULL AND c.dt IS NULL
        )
        INSERT INTO contact_property_values (funnel_id, property_name, contact_id, number_value, date_value)
        SELECT NEW.funnel_id, c.name, NEW.id, c.n, c.dt FROM changed c WHERE c.n IS NOT NULL OR c.dt IS NOT NULL
        ON CONFLICT (funnel_id, property_name, contact_id)
        DO UPDATE SET number_value = EXCLUDED.number_value, date_value = EXCLUDED.date_value;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION contact_property_values_remove() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM contact_property_values v USING deleted_contacts c, contact_property_definitions d
        WHERE d.funnel_id = c.funnel_id AND d.type IN ('number', 'date') AND c.properties ? d.name
          AND v.funnel_id = d.funnel_id AND v.property_name = d.name AND v.contact_id = c.id;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      'CREATE TRIGGER contacts_property_values_insert AFTER INSERT ON contacts REFERENCING NEW TABLE AS inserted_contacts FOR EACH STATEMENT EXECUTE FUNCTION contact_property_values_add()',
    );
    await queryRunner.query(
      'CREATE TRIGGER contacts_property_values_update AFTER UPDATE OF properties ON contacts FOR EACH ROW WHEN (OLD.properties IS DISTINCT FROM NEW.properties) EXECUTE FUNCTION contact_property_values_change()',
    );
    await queryRunner.query(
      'CREATE TRIGGER contacts_property_values_delete AFTER DELETE ON contacts REFERENCING OLD TABLE AS deleted_contacts FOR EACH STATEMENT EXECUTE FUNCTION contact_property_values_remove()',
    );
    // Definitions made before this migration.
    await queryRunner.query(
      `SELECT contact_property_values_rebuild(funnel_id, name) FROM contact_property_definitions WHERE type IN ('number', 'date')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER contacts_property_values_delete ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_property_values_update ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_property_values_insert ON contacts');
    await queryRunner.query('DROP FUNCTION contact_property_values_remove()');
    await queryRunner.query('DROP FUNCTION contact_property_values_change()');
    await queryRunner.query('DROP FUNCTION contact_property_values_add()');
    await queryRunner.query('DROP FUNCTION contact_property_values_rebuild(uuid, text)');
    await queryRunner.query('DROP FUNCTION contact_property_date(text, jsonb)');
    await queryRunner.query('DROP FUNCTION contact_property_number(text, jsonb)');
    await queryRunner.query(
      'ALTER TABLE "contact_property_values" DROP CONSTRAINT "FK_2869f7549b3fd8e80a09bb90680"',
    );
    await queryRunner.query('DROP INDEX "public"."idx_contact_property_values_number"');
    await queryRunner.query('DROP INDEX "public"."idx_contact_property_values_date"');
    await queryRunner.query('DROP TABLE "contact_property_values"');
  }
}
