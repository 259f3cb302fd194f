import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The records kept from contacts' properties (contact_unique_values, contact_property_values) follow
 * an update once per statement over its changed rows instead of once per changed row: a batch of
 * 50 updates made 100 PL/pgSQL calls, each taking the definitions lock and running two or three
 * statements (docs/BENCHMARKS.md, "Batch upsert").
 *
 * The queries joining the old and new rows run through EXECUTE, planned on every call with the
 * transition tables' sizes: a plan kept per connection (PL/pgSQL's static SQL) made for one row
 * joins 5,000 rows pair by pair. A statement whose rows' properties did not change, or whose
 * funnels define no unique, number or date property, stops after one query.
 */
export class ContactPropertyRecordsPerStatement1796460000000 implements MigrationInterface {
  name = 'ContactPropertyRecordsPerStatement1796460000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION contact_property_records_change() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        funnels uuid[];
      BEGIN
        EXECUTE 'SELECT array_agg(DISTINCT n.funnel_id ORDER BY n.funnel_id)
                 FROM new_contacts n JOIN old_contacts o ON o.id = n.id AND o.funnel_id = n.funnel_id
                 WHERE o.properties IS DISTINCT FROM n.properties' INTO funnels;
        IF funnels IS NULL THEN
          RETURN NULL;
        END IF;
        -- As every writer of a funnel's properties, in one order; then the definitions are current.
        PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(f)) FROM unnest(funnels) AS f ORDER BY f;
        IF NOT EXISTS (SELECT 1 FROM contact_property_definitions d
                       WHERE d.funnel_id = ANY (funnels) AND (d."unique" OR d.type IN ('number', 'date'))) THEN
          RETURN NULL;
        END IF;
        EXECUTE 'DELETE FROM contact_unique_values u USING old_contacts o, new_contacts n, contact_property_definitions d
                 WHERE n.id = o.id AND n.funnel_id = o.funnel_id AND o.properties IS DISTINCT FROM n.properties
                   AND d.funnel_id = o.funnel_id AND d."unique" AND u.funnel_id = d.funnel_id
                   AND u.property_name = d.name AND u.contact_id = o.id
                   AND u.value_key = sha256(convert_to(o.properties ->> d.name, ''UTF8''))
                   AND (o.properties -> d.name) IS DISTINCT FROM (n.properties -> d.name)';
        EXECUTE 'INSERT INTO contact_unique_values (funnel_id, property_name, value_key, contact_id)
                 SELECT n.funnel_id, d.name, sha256(convert_to(n.properties ->> d.name, ''UTF8'')), n.id
                 FROM new_contacts n
                 JOIN old_contacts o ON o.id = n.id AND o.funnel_id = n.funnel_id
                 JOIN contact_property_definitions d ON d.funnel_id = n.funnel_id AND d."unique"
                 WHERE o.properties IS DISTINCT FROM n.properties AND n.properties ->> d.name IS NOT NULL
                   AND (o.properties -> d.name) IS DISTINCT FROM (n.properties -> d.name)';
        EXECUTE 'WITH changed AS (
                   SELECT n.funnel_id, n.id, d.name, d.values_generation AS generation,
                          contact_property_number(d.type, n.properties -> d.name) AS n,
                          contact_property_date(d.type, n.properties -> d.name) AS dt
                   FROM new_contacts n
                   JOIN old_contacts o ON o.id = n.id AND o.funnel_id = n.funnel_id
                   JOIN contact_property_definitions d ON d.funnel_id = n.funnel_id AND d.type IN (''number'', ''date'')
                   WHERE o.properties IS DISTINCT FROM n.properties
                     AND (o.properties -> d.name) IS DISTINCT FROM (n.properties -> d.name)
                 ), gone AS (
                   DELETE FROM contact_property_values v USING changed c
                   WHERE v.funnel_id = c.funnel_id AND v.property_name = c.name AND v.contact_id = c.id
                     AND c.n IS NULL AND c.dt IS NULL
                 )
                 INSERT INTO contact_property_values (funnel_id, property_name, contact_id, generation, number_value, date_value)
                 SELECT c.funnel_id, c.name, c.id, c.generation, c.n, c.dt FROM changed c WHERE c.n IS NOT NULL OR c.dt IS NOT NULL
                 ON CONFLICT (funnel_id, property_name, contact_id) DO UPDATE SET generation = EXCLUDED.generation,
                   number_value = EXCLUDED.number_value, date_value = EXCLUDED.date_value';
        RETURN NULL;
      END $$`);
    await queryRunner.query('DROP TRIGGER contacts_unique_values_update ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_property_values_update ON contacts');
    // One trigger for both records: a trigger with transition tables cannot name its columns, so
    // it fires on every update of contacts and returns after its first query when no properties changed.
    await queryRunner.query(
      'CREATE TRIGGER contacts_property_records_update AFTER UPDATE ON contacts REFERENCING OLD TABLE AS old_contacts NEW TABLE AS new_contacts FOR EACH STATEMENT EXECUTE FUNCTION contact_property_records_change()',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER contacts_property_records_update ON contacts');
    await queryRunner.query(
      'CREATE TRIGGER contacts_unique_values_update AFTER UPDATE OF properties ON contacts FOR EACH ROW WHEN (OLD.properties IS DISTINCT FROM NEW.properties) EXECUTE FUNCTION contact_unique_values_change()',
    );
    await queryRunner.query(
      'CREATE TRIGGER contacts_property_values_update AFTER UPDATE OF properties ON contacts FOR EACH ROW WHEN (OLD.properties IS DISTINCT FROM NEW.properties) EXECUTE FUNCTION contact_property_values_change()',
    );
    await queryRunner.query('DROP FUNCTION contact_property_records_change()');
  }
}
