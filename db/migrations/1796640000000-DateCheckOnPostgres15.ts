import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Brings a database migrated before PostgreSQL 15 was supported to the date check that runs
 * there: contact_property_date reads a date through iso_date_or_null instead of
 * pg_input_is_valid (PostgreSQL 16+). Both answer the same for every value; on a database
 * migrated since, this redefines them as they are.
 */
export class DateCheckOnPostgres151796640000000 implements MigrationInterface {
  name = 'DateCheckOnPostgres151796640000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION iso_date_or_null(value text) RETURNS date
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
      BEGIN
        IF value !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN RETURN NULL; END IF;
        RETURN value::date;
      EXCEPTION WHEN data_exception THEN
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION contact_property_date(type text, value jsonb) RETURNS date
      LANGUAGE sql STABLE PARALLEL SAFE AS $$
        SELECT CASE WHEN type = 'date' AND jsonb_typeof(value) = 'string'
          THEN iso_date_or_null(value #>> '{}') END
      $$`);
  }

  public async down(): Promise<void> {
    // The definitions answer as the ones they replaced: nothing to restore.
  }
}
