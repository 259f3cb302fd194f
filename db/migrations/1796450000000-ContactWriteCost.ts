import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Less work per written contact, same results (docs/BENCHMARKS.md, "Batch upsert"):
 * - idx_contacts_filter_email goes: idx_contacts_search_email_prefix has the same key
 *   (funnel_id, lower(email)) and its text_pattern_ops serves `=` and `= ANY` too, so every
 *   contact written no longer feeds a second copy of it.
 * - The triggers keeping contact_unique_values and contact_property_values on an update of
 *   properties run once per statement over its changed rows instead of once per row, so a batch
 *   of 50 updates runs two trigger calls, not 100. They fire on every update of contacts (a
 *   trigger with transition tables cannot name columns) and return at once when no row's
 *   properties changed.
 */
export class ContactWriteCost1796450000000 implements MigrationInterface {
  name = 'ContactWriteCost1796450000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."idx_contacts_filter_email"');

    await queryRunner.query(`
      CREATE FUNCTION contact_unique_values_change_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM new_contacts n JOIN old_contacts o ON o.id = n.id AND o.funnel_id = n.funnel_id
                       WHERE o.properties IS DISTINCT FROM n.properties) THEN
          RETURN NULL;
        END IF;
        PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(f.funnel_id))
        FROM (SELECT DISTINCT n.funnel_id FROM new_contacts n JOIN old_contacts o ON o.id = n.id AND o.funnel_id = n.funnel_id
              WHERE o.properties IS DISTINCT FROM n.properties ORDER BY 1) f;
        DELETE FROM contact_unique_values u USING old_contacts o, new_contacts n, contact_property_definitions d
        WHERE n.id = o.id AND n.funnel_id = o.funnel_id
          AND d.funnel_id = o.funnel_id AND d."unique" AND u.funnel_id = d.funnel_id
          AND u.property_name = d.name AND u.contact_id = o.id
          AND u.value_key = sha256(convert_to(o.properties ->> d.name, 'UTF8'))
          AND (o.properties -> d.name) IS DISTINCT FROM (n.properties -> d.name);
        INSERT INTO contact_unique_values (funnel_id, property_name, value_key, contact_id)
        SELECT n.funnel_id, d.name, sha256(convert_to(n.properties ->> d.name, 'UTF8')), n.id
        FROM new_contacts n
        JOIN old_contacts o ON o.id = n.id AND o.funnel_id = n.funnel_id
        JOIN contact_property_definitions d ON d.funnel_id = n.funnel_id AND d."unique"
        WHERE n.properties ->> d.name IS NOT NULL
          AND (o.properties -> d.name) IS DISTINCT FROM (n.properties -> d.name);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION contact_property_values_change_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM new_contacts n JOIN old_contacts o ON o.id = n.id AND o.funnel_id = n.funnel_id
                       WHERE o.properties IS DISTINCT FROM n.properties) THEN
          RETURN NULL;
        END IF;
        PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(f.funnel_id))
        FROM (SELECT DISTINCT n.funnel_id FROM new_contacts n JOIN old_contacts o ON o.id = n.id AND o.funnel_id = n.funnel_id
              WHERE o.properties IS DISTINCT FROM n.properties ORDER BY 1) f;
        WITH changed AS (
          SELECT n.funnel_id, n.id, d.name, d.values_generation AS generation,
                 contact_property_number(d.type, n.properties -> d.name) AS n,
                 contact_property_date(d.type, n.properties -> d.name) AS dt
          FROM new_contacts n
          JOIN old_contacts o ON o.id = n.id AND o.funnel_id = n.funnel_id
          JOIN contact_property_definitions d ON d.funnel_id = n.funnel_id AND d.type IN ('number', 'date')
          WHERE (o.properties -> d.name) IS DISTINCT FROM (n.properties -> d.name)
        ), gone AS (
          DELETE FROM contact_property_values v USING changed c
          WHERE v.funnel_id = c.funnel_id AND v.property_name = c.name AND v.contact_id = c.id
            AND c.n IS NULL AND c.dt IS NULL
        )
        INSERT INTO contact_property_values (funnel_id, property_name, contact_id, generation, number_value, date_value)
        SELECT c.funnel_id, c.name, c.id, c.generation, c.n, c.dt FROM changed c WHERE c.n IS NOT NULL OR c.dt IS NOT NULL
        ON CONFLICT (funnel_id, property_name, contact_id) DO UPDATE SET generation = EXCLUDED.generation,
          number_value = EXCLUDED.number_value, date_value = EXCLUDED.date_value;
        RETURN NULL;
      END $$`);
    await queryRunner.query('DROP TRIGGER contacts_unique_values_update ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_property_values_update ON contacts');
    await queryRunner.query(
      'CREATE TRIGGER contacts_unique_values_update AFTER UPDATE ON contacts REFERENCING OLD TABLE AS old_contacts NEW TABLE AS new_contacts FOR EACH STATEMENT EXECUTE FUNCTION contact_unique_values_change_rows()',
    );
    await queryRunner.query(
      'CREATE TRIGGER contacts_property_values_update AFTER UPDATE ON contacts REFERENCING OLD TABLE AS old_contacts NEW TABLE AS new_contacts FOR EACH STATEMENT EXECUTE FUNCTION contact_property_values_change_rows()',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER contacts_property_values_update ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_unique_values_update ON contacts');
    await queryRunner.query(
      'CREATE TRIGGER contacts_unique_values_update AFTER UPDATE OF properties ON contacts FOR EACH ROW WHEN (OLD.properties IS DISTINCT FROM NEW.properties) EXECUTE FUNCTION contact_unique_values_change()',
    );
    await queryRunner.query(
      'CREATE TRIGGER contacts_property_values_update AFTER UPDATE OF properties ON contacts FOR EACH ROW WHEN (OLD.properties IS DISTINCT FROM NEW.properties) EXECUTE FUNCTION contact_property_values_change()',
    );
    await queryRunner.query('DROP FUNCTION contact_property_values_change_rows()');
    await queryRunner.query('DROP FUNCTION contact_unique_values_change_rows()');
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_filter_email" ON "contacts" ("funnel_id", lower("email"))',
    );
  }
}
