import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * to_jsonb of a text, number or boolean as IMMUTABLE functions (to_jsonb itself is STABLE, for
 * types whose text depends on settings, such as timestamps). Retyping a property's stored values
 * uses them in an UPDATE of contacts, where Citus refuses STABLE functions over columns.
 */
export class ImmutableJsonbOfScalars1796640000003 implements MigrationInterface {
  name = 'ImmutableJsonbOfScalars1796640000003';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const type of ['text', 'numeric', 'boolean']) {
      await queryRunner.query(
        `CREATE FUNCTION jsonb_of_${type}(value ${type}) RETURNS jsonb
         LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS 'SELECT to_jsonb(value)'`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const type of ['text', 'numeric', 'boolean']) {
      await queryRunner.query(`DROP FUNCTION jsonb_of_${type}(${type})`);
    }
  }
}
