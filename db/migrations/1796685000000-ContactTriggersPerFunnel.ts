import { MigrationInterface, QueryRunner } from 'typeorm';

// The statement triggers of contacts and contact_messages keep the counts, unique values and typed
// values. Each now reads its transition table alone (a plain local query), one row per funnel, and
// then writes with that funnel named and the rows passed as a value. On Citus the triggers run on
// the shards: a statement that joined a transition table to another distributed table failed
// there (the executor could not find the transition table), while one that names its funnel is
// routed to the co-located shard on the same node. On one PostgreSQL the answers are the same.

const ROWS = `jsonb_agg(jsonb_build_object('id', id, 'properties', properties))`;

/** A funnel's rows `f.rows` as records `c` with these `columns` (jsonb_to_recordset). */
const recordsOf = (columns: string) => `jsonb_to_recordset(f.rows) AS c(id uuid, ${columns})`;

/** The unique values of `value` (a jsonb of properties) of the rows joined `on`, inserted. */
const uniqueValuesInsert = (value: string, columns: string, on: string) => `
          INSERT INTO contact_unique_values (funnel_id, property_name, value_key, contact_id)
          SELECT d.funnel_id, d.name, sha256(convert_to(${value} ->> d.name, 'UTF8')), c.id
          FROM contact_property_definitions d
          JOIN ${recordsOf(columns)} ON ${on}
          WHERE d.funnel_id = f.funnel_id AND d."unique";`;

/** The typed values of `value` (a jsonb of properties) of the rows joined `on`, upserted. */
const typedValuesUpsert = (value: string, columns: string, on: string) => `
          INSERT INTO contact_property_values (funnel_id, property_name, contact_id, generation, number_value, date_value)
          SELECT t.funnel_id, t.name, t.id, t.generation, t.n, t.dt FROM (
            SELECT d.funnel_id, d.name, c.id, d.values_generation AS generation,
                   contact_property_number(d.type, ${value} -> d.name) AS n,
                   contact_property_date(d.type, ${value} -> d.name) AS dt
            FROM contact_property_definitions d
            JOIN ${recordsOf(columns)} ON ${on}
            WHERE d.funnel_id = f.funnel_id AND d.type IN ('number', 'date')) t
          WHERE t.n IS NOT NULL OR t.dt IS NOT NULL
          ON CONFLICT (funnel_id, property_name, contact_id) DO UPDATE SET generation = EXCLUDED.generation,
            number_value = EXCLUDED.number_value, date_value = EXCLUDED.date_value;`;

const COUNTS_ADD = `
      DECLARE f record;
      BEGIN
        FOR f IN SELECT funnel_id, count(*) AS n FROM inserted_contacts GROUP BY funnel_id ORDER BY funnel_id LOOP
          INSERT INTO funnel_contact_counts (funnel_id, contact_count) VALUES (f.funnel_id, f.n)
          ON CONFLICT (funnel_id) DO UPDATE SET contact_count = funnel_contact_counts.contact_count + EXCLUDED.contact_count;
        END LOOP;
        RETURN NULL;
      END`;

// An update, not an upsert: when a funnel is deleted its count row may already be gone.
const COUNTS_REMOVE = `
      DECLARE f record;
      BEGIN
        FOR f IN SELECT funnel_id, count(*) AS n FROM deleted_contacts GROUP BY funnel_id ORDER BY funnel_id LOOP
          UPDATE funnel_contact_counts SET contact_count = contact_count - f.n WHERE funnel_id = f.funnel_id;
        END LOOP;
        RETURN NULL;
      END`;

const UNIQUE_ADD = `
      DECLARE f record;
      BEGIN
        FOR f IN SELECT funnel_id, ${ROWS} AS rows FROM inserted_contacts
                 WHERE properties <> '{}' GROUP BY funnel_id ORDER BY funnel_id LOOP
          PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(f.funnel_id));
          ${uniqueValuesInsert('c.properties', 'properties jsonb', 'c.properties ->> d.name IS NOT NULL')}
        END LOOP;
        RETURN NULL;
      END`;

const UNIQUE_REMOVE = `
      DECLARE f record;
      BEGIN
        FOR f IN SELECT funnel_id, ${ROWS} AS rows FROM deleted_contacts
                 WHERE properties <> '{}' GROUP BY funnel_id ORDER BY funnel_id LOOP
          DELETE FROM contact_unique_values u
          WHERE u.funnel_id = f.funnel_id AND (u.property_name, u.value_key, u.contact_id) IN (
            SELECT d.name, sha256(convert_to(c.properties ->> d.name, 'UTF8')), c.id
            FROM contact_property_definitions d
            JOIN ${recordsOf('properties jsonb')} ON c.properties ->> d.name IS NOT NULL
            WHERE d.funnel_id = f.funnel_id AND d."unique");
        END LOOP;
        RETURN NULL;
      END`;

const VALUES_ADD = `
      DECLARE f record;
      BEGIN
        FOR f IN SELECT funnel_id, ${ROWS} AS rows FROM inserted_contacts
                 WHERE properties <> '{}' GROUP BY funnel_id ORDER BY funnel_id LOOP
          PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(f.funnel_id));
          ${typedValuesUpsert('c.properties', 'properties jsonb', 'c.properties ? d.name')}
        END LOOP;
        RETURN NULL;
      END`;

const VALUES_REMOVE = `
      DECLARE f record;
      BEGIN
        FOR f IN SELECT funnel_id, ${ROWS} AS rows FROM deleted_contacts
                 WHERE properties <> '{}' GROUP BY funnel_id ORDER BY funnel_id LOOP
          DELETE FROM contact_property_values v
          WHERE v.funnel_id = f.funnel_id AND (v.property_name, v.contact_id) IN (
            SELECT d.name, c.id
            FROM contact_property_definitions d
            JOIN ${recordsOf('properties jsonb')} ON c.properties ? d.name
            WHERE d.funnel_id = f.funnel_id AND d.type IN ('number', 'date'));
        END LOOP;
        RETURN NULL;
      END`;

// A changed row's properties before and after, and a property that differs between them.
const CHANGED = 'old jsonb, new jsonb';
const DIFFERS = '(c.old -> d.name) IS DISTINCT FROM (c.new -> d.name)';

// The changed rows of each funnel are read with EXECUTE, so the join of the old and new rows is
// planned on every run; the function returns after that query when no properties changed.
const RECORDS_CHANGE = `
      DECLARE f record;
      BEGIN
        FOR f IN EXECUTE 'SELECT n.funnel_id, jsonb_agg(jsonb_build_object(''id'', n.id, ''old'', o.properties, ''new'', n.properties)) AS rows
                 FROM new_contacts n JOIN old_contacts o ON o.id = n.id AND o.funnel_id = n.funnel_id
                 WHERE o.properties IS DISTINCT FROM n.properties GROUP BY n.funnel_id ORDER BY n.funnel_id' LOOP
          -- As every writer of a funnel's properties, in one order; then the definitions are current.
          PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(f.funnel_id));
          CONTINUE WHEN NOT EXISTS (SELECT 1 FROM contact_property_definitions d
                                    WHERE d.funnel_id = f.funnel_id AND (d."unique" OR d.type IN ('number', 'date')));
          DELETE FROM contact_unique_values u
          WHERE u.funnel_id = f.funnel_id AND (u.property_name, u.value_key, u.contact_id) IN (
            SELECT d.name, sha256(convert_to(c.old ->> d.name, 'UTF8')), c.id
            FROM contact_property_definitions d
            JOIN ${recordsOf(CHANGED)} ON ${DIFFERS}
            WHERE d.funnel_id = f.funnel_id AND d."unique");
          ${uniqueValuesInsert('c.new', CHANGED, `c.new ->> d.name IS NOT NULL AND ${DIFFERS}`)}
          DELETE FROM contact_property_values v
          WHERE v.funnel_id = f.funnel_id AND (v.property_name, v.contact_id) IN (
            SELECT d.name, c.id
            FROM contact_property_definitions d
            JOIN ${recordsOf(CHANGED)} ON ${DIFFERS}
            WHERE d.funnel_id = f.funnel_id AND d.type IN ('number', 'date')
              AND contact_property_number(d.type, c.new -> d.name) IS NULL
              AND contact_property_date(d.type, c.new -> d.name) IS NULL);
          ${typedValuesUpsert('c.new', CHANGED, DIFFERS)}
        END LOOP;
        RETURN NULL;
      END`;

// A message is part of the contact (its messages member), so recording one is a change.
const MESSAGES_TOUCH = `
      DECLARE f record;
      BEGIN
        FOR f IN SELECT funnel_id, array_agg(DISTINCT contact_id) AS ids FROM inserted_messages
                 GROUP BY funnel_id ORDER BY funnel_id LOOP
          UPDATE contacts SET updated_at = now() WHERE funnel_id = f.funnel_id AND id = ANY (f.ids);
        END LOOP;
        RETURN NULL;
      END`;

const UP: Record<string, string> = {
  funnel_contact_counts_add: COUNTS_ADD,
  funnel_contact_counts_remove: COUNTS_REMOVE,
  contact_unique_values_add: UNIQUE_ADD,
  contact_unique_values_remove: UNIQUE_REMOVE,
  contact_property_values_add: VALUES_ADD,
  contact_property_values_remove: VALUES_REMOVE,
  contact_property_records_change: RECORDS_CHANGE,
  contact_messages_touch_contact: MESSAGES_TOUCH,
};

// The bodies before, each joining its transition table to the other tables in one statement.
const DOWN: Record<string, string> = {
  funnel_contact_counts_add: `
      BEGIN
        INSERT INTO funnel_contact_counts (funnel_id, contact_count)
        SELECT funnel_id, count(*) FROM inserted_contacts GROUP BY funnel_id ORDER BY funnel_id
        ON CONFLICT (funnel_id) DO UPDATE SET contact_count = funnel_contact_counts.contact_count + EXCLUDED.contact_count;
        RETURN NULL;
      END`,
  funnel_contact_counts_remove: `
      BEGIN
        UPDATE funnel_contact_counts c SET contact_count = c.contact_count - d.removed
        FROM (SELECT funnel_id, count(*) AS removed FROM deleted_contacts GROUP BY funnel_id) d
        WHERE c.funnel_id = d.funnel_id;
        RETURN NULL;
      END`,
  contact_unique_values_add: `
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(contact_properties_lock_key(f.funnel_id))
        FROM (SELECT DISTINCT funnel_id FROM inserted_contacts WHERE properties <> '{}' ORDER BY 1) f;
        INSERT INTO contact_unique_values (funnel_id, property_name, value_key, contact_id)
        SELECT c.funnel_id, d.name, sha256(convert_to(c.properties ->> d.name, 'UTF8')), c.id
        FROM inserted_contacts c
        JOIN contact_property_definitions d ON d.funnel_id = c.funnel_id AND d."unique"
        WHERE c.properties <> '{}' AND c.properties ->> d.name IS NOT NULL;
        RETURN NULL;
      END`,
  contact_unique_values_remove: `
      BEGIN
        DELETE FROM contact_unique_values u USING deleted_contacts c, contact_property_definitions d
        WHERE d.funnel_id = c.funnel_id AND d."unique" AND c.properties ->> d.name IS NOT NULL
          AND u.funnel_id = d.funnel_id AND u.property_name = d.name
          AND u.value_key = sha256(convert_to(c.properties ->> d.name, 'UTF8')) AND u.contact_id = c.id;
        RETURN NULL;
      END`,
  contact_property_values_add: `
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
      END`,
  contact_property_values_remove: `
      BEGIN
        DELETE FROM contact_property_values v USING deleted_contacts c, contact_property_definitions d
        WHERE d.funnel_id = c.funnel_id AND d.type IN ('number', 'date') AND c.properties ? d.name
          AND v.funnel_id = d.funnel_id AND v.property_name = d.name AND v.contact_id = c.id;
        RETURN NULL;
      END`,
  contact_property_records_change: `
      DECLARE
        funnels uuid[];
      BEGIN
        EXECUTE 'SELECT array_agg(DISTINCT n.funnel_id ORDER BY n.funnel_id)
                 FROM new_contacts n JOIN old_contacts o ON o.id = n.id AND o.funnel_id = n.funnel_id
                 WHERE o.properties IS DISTINCT FROM n.properties' INTO funnels;
        IF funnels IS NULL THEN
          RETURN NULL;
        END IF;
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
      END`,
  contact_messages_touch_contact: `
      BEGIN
        UPDATE contacts SET updated_at = now()
        WHERE id IN (SELECT DISTINCT contact_id FROM inserted_messages);
        RETURN NULL;
      END`,
};

function define(bodies: Record<string, string>): string[] {
  return Object.entries(bodies).map(
    ([name, body]) => `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$${body} $$`,
  );
}

/** The contact triggers write per funnel, never joining a transition table to another table. */
export class ContactTriggersPerFunnel1796685000000 implements MigrationInterface {
  name = 'ContactTriggersPerFunnel1796685000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of define(UP)) await queryRunner.query(sql);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of define(DOWN)) await queryRunner.query(sql);
  }
}
