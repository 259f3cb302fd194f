import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The values of number and date properties kept typed in contact_property_values, whose two
 * indexes serve a range search of any such property of any funnel. Triggers on contacts keep it
 * whoever writes (as they keep contact_unique_values). A definition's rows carry its generation,
 * new at its creation and at each change of type: the service copies the values already stored
 * after the definition commits, in chunks (values_ready, values_cursor), and a search reads only
 * the current generation's rows once they are complete. The rows of a generation that ends (a
 * deletion or change of type) are recorded in contact_property_values_retired and removed in
 * chunks too, so neither a definition nor its deletion waits on a funnel's contacts.
 */
export class ContactPropertyValues1796420000000 implements MigrationInterface {
  name = 'ContactPropertyValues1796420000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "contact_property_values" ("funnel_id" uuid NOT NULL, "property_name" character varying(64) NOT NULL, "contact_id" uuid NOT NULL, "generation" uuid NOT NULL, "number_value" numeric, "date_value" date, CONSTRAINT "PK_48d39741306853b88e60daf7288" PRIMARY KEY ("funnel_id", "property_name", "contact_id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contact_property_values_date" ON "contact_property_values"  ("funnel_id", "property_name", "generation", "date_value", "contact_id") WHERE "date_value" IS NOT NULL',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contact_property_values_number" ON "contact_property_values"  ("funnel_id", "property_name", "generation", "number_value", "contact_id") WHERE "number_value" IS NOT NULL',
    );
    await queryRunner.query(
      'CREATE TABLE "contact_property_values_retired" ("funnel_id" uuid NOT NULL, "property_name" character varying(64) NOT NULL, "generation" uuid NOT NULL, CONSTRAINT "PK_8ad87941a750610e01fc026d02d" PRIMARY KEY ("funnel_id", "property_name", "generation"))',
    );
    await queryRunner.query(
      'ALTER TABLE "contact_property_definitions" ADD "values_generation" uuid NOT NULL DEFAULT gen_random_uuid()',
    );
    // Each existing definition its own generation; the service gives new ones theirs.
    await queryRunner.query(
      'ALTER TABLE "contact_property_definitions" ALTER COLUMN "values_generation" DROP DEFAULT',
    );
    await queryRunner.query(
      'ALTER TABLE "contact_property_definitions" ADD "values_ready" boolean NOT NULL DEFAULT true',
    );
    await queryRunner.query('ALTER TABLE "contact_property_definitions" ADD "values_cursor" uuid');
    await queryRunner.query(
      'ALTER TABLE "contact_property_definitions" ADD "values_cursor_created_at" TIMESTAMP WITH TIME ZONE',
    );

    // A stored value as its type holds it, or null when it has none: never an error, so a value
    // written around the service's checks is left out rather than failing the write.
    await queryRunner.query(`
      CREATE FUNCTION contact_property_number(type text, value jsonb) RETURNS numeric
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT CASE WHEN type = 'number' AND jsonb_typeof(value) = 'number' THEN (value #>> '{}')::numeric END
      $$`);
    // The date of a YYYY-MM-DD text, or null when it is not one (2024-02-30): what
    // pg_input_is_valid(value, 'date') answers, written so PostgreSQL 15 runs it too.
    await queryRunner.query(`
      CREATE FUNCTION iso_date_or_null(value text) RETURNS date
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
      BEGIN
        IF value !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN RETURN NULL; END IF;
        RETURN value::date;
      EXCEPTION WHEN data_exception THEN
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION contact_property_date(type text, value jsonb) RETURNS date
      LANGUAGE sql STABLE PARALLEL SAFE AS $$
        SELECT CASE WHEN type = 'date' AND jsonb_typeof(value) = 'string'
          THEN iso_date_or_null(value #>> '{}') END
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION contact_property_values_add() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(f.funnel_id))
        FROM (SELECT DISTINCT funnel_id FROM inserted_contacts WHERE properties <> '{}' ORDER BY 1) f;
        INSERT INTO contact_property_values (funnel_id, property_name, contact_id, generation, number_value, date_value)
        SELECT t.funnel_id, t.name, t.id, t.generation, t.n, t.dt FROM (
          SELECT c.funnel_id, d.name, c.id, d.values_generation AS generation,
                 contact_property_number(d.type, c.properties -> d.name) AS n,
                 contact_property_date(d.type, c.properties -> d.name) AS dt
          FROM inserted_contacts c
          JOIN contact_property_definitions d ON d.funnel_id = c.funnel_id AND d.type IN ('number', 'date')
          WHERE c.properties <> '{}' AND c.properties ? d.name) t
        WHERE t.n IS NOT NULL OR t.dt IS NOT NULL
        ON CONFLICT (funnel_id, property_name, contact_id) DO UPDATE SET generation = EXCLUDED.generation,
          number_value = EXCLUDED.number_value, date_value = EXCLUDED.date_value;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION contact_property_values_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(NEW.funnel_id));
        WITH changed AS (
          SELECT d.name, d.values_generation AS generation,
                 contact_property_number(d.type, NEW.properties -> d.name) AS n,
                 contact_property_date(d.type, NEW.properties -> d.name) AS dt
          FROM contact_property_definitions d
          WHERE d.funnel_id = NEW.funnel_id AND d.type IN ('number', 'date')
            AND (OLD.properties -> d.name) IS DISTINCT FROM (NEW.properties -> d.name)
        ), gone AS (
          DELETE FROM contact_property_values v USING changed c
          WHERE v.funnel_id = NEW.funnel_id AND v.property_name = c.name AND v.contact_id = NEW.id
            AND c.n IS NULL AND c.dt IS NULL
        )
        INSERT INTO contact_property_values (funnel_id, property_name, contact_id, generation, number_value, date_value)
        SELECT NEW.funnel_id, c.name, NEW.id, c.generation, c.n, c.dt FROM changed c WHERE c.n IS NOT NULL OR c.dt IS NOT NULL
        ON CONFLICT (funnel_id, property_name, contact_id) DO UPDATE SET generation = EXCLUDED.generation,
          number_value = EXCLUDED.number_value, date_value = EXCLUDED.date_value;
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
    // A generation that ends, whoever ends it (the service, a funnel's deletion, plain SQL), leaves
    // its rows to be removed in chunks.
    await queryRunner.query(`
      CREATE FUNCTION contact_property_values_retire() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND NEW.values_generation = OLD.values_generation THEN RETURN NULL; END IF;
        INSERT INTO contact_property_values_retired (funnel_id, property_name, generation)
        VALUES (OLD.funnel_id, OLD.name, OLD.values_generation) ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER contact_property_definitions_retire AFTER UPDATE OF values_generation OR DELETE ON contact_property_definitions FOR EACH ROW WHEN (OLD.type IN ('number', 'date')) EXECUTE FUNCTION contact_property_values_retire()`,
    );
    // Definitions made before this migration: their values are copied after it, in chunks.
    await queryRunner.query(
      `UPDATE contact_property_definitions SET values_ready = false WHERE type IN ('number', 'date')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'DROP TRIGGER contact_property_definitions_retire ON contact_property_definitions',
    );
    await queryRunner.query('DROP FUNCTION contact_property_values_retire()');
    await queryRunner.query('DROP TRIGGER contacts_property_values_delete ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_property_values_update ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_property_values_insert ON contacts');
    await queryRunner.query('DROP FUNCTION contact_property_values_remove()');
    await queryRunner.query('DROP FUNCTION contact_property_values_change()');
    await queryRunner.query('DROP FUNCTION contact_property_values_add()');
    await queryRunner.query('DROP FUNCTION contact_property_date(text, jsonb)');
    await queryRunner.query('DROP FUNCTION iso_date_or_null(text)');
    await queryRunner.query('DROP FUNCTION contact_property_number(text, jsonb)');
    await queryRunner.query(
      'ALTER TABLE "contact_property_definitions" DROP COLUMN "values_cursor_created_at"',
    );
    await queryRunner.query('ALTER TABLE "contact_property_definitions" DROP COLUMN "values_cursor"');
    await queryRunner.query('ALTER TABLE "contact_property_definitions" DROP COLUMN "values_ready"');
    await queryRunner.query('ALTER TABLE "contact_property_definitions" DROP COLUMN "values_generation"');
    await queryRunner.query('DROP TABLE "contact_property_values_retired"');
    await queryRunner.query('DROP INDEX "public"."idx_contact_property_values_number"');
    await queryRunner.query('DROP INDEX "public"."idx_contact_property_values_date"');
    await queryRunner.query('DROP TABLE "contact_property_values"');
  }
}
