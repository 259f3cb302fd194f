import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

/**
 * `"first_name" AS "firstName", ...` (each column prefixed with `alias.` when given) for every
 * column of the entity, from its metadata: plain SQL that reads rows in the entity's shape, so the
 * column list follows the entity.
 */
export function selectList(
  dataSource: DataSource,
  entity: EntityTarget<ObjectLiteral>,
  alias?: string,
): string {
  const prefix = alias ? `${alias}.` : '';
  return dataSource
    .getMetadata(entity)
    .columns.map((c) => `${prefix}"${c.databaseName}" AS "${c.propertyName}"`)
    .join(', ');
}
