import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { selectList } from '@app/core';
import { ContactPropertyDefinition } from './entities/contact-property-definition.entity';
import { ContactUniqueValue } from './entities/contact-unique-value.entity';
import { propertyFitsSql, PropertyTypeRule, typedPropertySql } from './property-types';

/** A funnel's property definitions by name. */
export type PropertyDefinitions = ReadonlyMap<string, ContactPropertyDefinition>;

export interface Misfits {
  /** Stored values the type does not accept. */
  wrongType: number;
  /** Contacts whose value another contact of the funnel holds too (for a unique property). */
  shared: number;
}

/** The SQL of property definitions and of the values they govern. */
@Injectable()
export class ContactPropertiesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The funnel's definitions. With `lock` (inside the caller's transaction) the definitions
   * cannot change until it commits: take it before checking values a write will store.
   */
  async definitions(
    manager: EntityManager,
    funnelId: string,
    options: { lock?: 'shared' | 'exclusive' } = {},
  ): Promise<Map<string, ContactPropertyDefinition>> {
    if (options.lock) {
      const fn = options.lock === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
      await manager.query(`SELECT ${fn}(contact_properties_lock_key($1))`, [funnelId]);
    }
    // Plain SQL, not find(): every write reads the definitions, and building find's query cost
    // more than running it (docs/BENCHMARKS.md, "Batch upsert").
    const rows: Record<string, unknown>[] = await manager.query(
      `SELECT ${this.columns()} FROM contact_property_definitions WHERE funnel_id = $1 ORDER BY name`,
      [funnelId],
    );
    return new Map(rows.map((row) => [row.name as string, manager.create(ContactPropertyDefinition, row)]));
  }

  private selected?: string;

  /** The entity's columns as its properties. */
  private columns(): string {
    return (this.selected ??= selectList(this.dataSource, ContactPropertyDefinition));
  }

  /** The funnel's definitions, read outside any transaction. */
  list(funnelId: string): Promise<Map<string, ContactPropertyDefinition>> {
    return this.definitions(this.dataSource.manager, funnelId);
  }

  /** How many stored values of property `name` the rule (and uniqueness) would refuse. */
  async misfits(
    manager: EntityManager,
    funnelId: string,
    name: string,
    rule: PropertyTypeRule & { unique: boolean },
  ): Promise<Misfits> {
    const params: unknown[] = [funnelId, name];
    const param = (v: unknown) => `$${params.push(v)}`;
    const fits = propertyFitsSql(rule, 'c.properties -> $2', param);
    const typed = typedPropertySql(rule, 'c.properties -> $2');
    const shared = rule.unique
      ? `(SELECT coalesce(sum(n), 0) FROM (
           SELECT count(*) AS n FROM contacts c WHERE c.funnel_id = $1 AND c.properties ? $2 AND ${fits}
           GROUP BY (${typed}) #>> '{}' HAVING count(*) > 1) d)`
      : '0';
    const rows: { wrong: string; shared: string }[] = await manager.query(
      `SELECT count(*) FILTER (WHERE NOT ${fits}) AS wrong, ${shared} AS shared
       FROM contacts c WHERE c.funnel_id = $1 AND c.properties ? $2 AND c.properties -> $2 <> 'null'`,
      params,
    );
    return { wrongType: Number(rows[0].wrong), shared: Number(rows[0].shared) };
  }

  /**
   * Stores the values of property `name` as its type now says (a "42" becomes 42), and rebuilds
   * the record of who holds each value of it when it is unique. The caller holds the lock.
   */
  async retype(
    manager: EntityManager,
    funnelId: string,
    name: string,
    rule: PropertyTypeRule & { unique: boolean },
  ): Promise<void> {
    const params: unknown[] = [funnelId, name];
    const typed = typedPropertySql(rule, 'c.properties -> $2');
    await manager.delete(ContactUniqueValue, { funnelId, propertyName: name });
    await manager.query(
      `UPDATE contacts c SET properties = jsonb_set(c.properties, ARRAY[$2::text], ${typed})
       WHERE c.funnel_id = $1 AND c.properties ? $2 AND c.properties -> $2 <> 'null'
         AND c.properties -> $2 IS DISTINCT FROM ${typed}`,
      params,
    );
    if (rule.unique) {
      await manager.query(
        `INSERT INTO contact_unique_values (funnel_id, property_name, value_key, contact_id)
         SELECT c.funnel_id, $2::text, sha256(convert_to(c.properties ->> $2::text, 'UTF8')), c.id
         FROM contacts c WHERE c.funnel_id = $1 AND c.properties ->> $2::text IS NOT NULL
         ON CONFLICT DO NOTHING`,
        [funnelId, name],
      );
    }
  }

  /**
   * The contacts of the funnel holding these values of unique property `name` (text forms):
   * contact id by value text.
   */
  async holders(
    manager: EntityManager,
    funnelId: string,
    name: string,
    values: string[],
  ): Promise<Map<string, string>> {
    if (!values.length) return new Map();
    const rows: { value: string; contact_id: string }[] = await manager.query(
      `SELECT v.value, u.contact_id FROM unnest($3::text[]) AS v(value)
       JOIN contact_unique_values u ON u.funnel_id = $1 AND u.property_name = $2
        AND u.value_key = sha256(convert_to(v.value, 'UTF8'))`,
      [funnelId, name, values],
    );
    return new Map(rows.map((r) => [r.value, r.contact_id]));
  }
}

/**
 * The unique property whose value a failed write would have shared with another contact, when
 * that is why it failed. (The value itself is never shown: another contact's data.)
 */
export function uniquePropertyViolated(error: unknown): string | undefined {
  if (!(error instanceof QueryFailedError)) return undefined;
  const driver = error.driverError as { code?: string; table?: string; detail?: string };
  if (driver.code !== '23505') return undefined;
  // On Citus the violation comes from a shard (`contact_unique_values_102110`), relayed without
  // its table: the key's columns, which only this table has, name it then.
  const table = driver.table ?? '';
  if (
    !/^contact_unique_values(_\d+)?$/.test(table) &&
    !/^Key \(funnel_id, property_name, value_key\)=/.test(driver.detail ?? '')
  )
    return undefined;
  // "Key (funnel_id, property_name, value_key)=(<uuid>, <name>, \x…) already exists."
  return /=\([0-9a-f-]{36}, ([A-Za-z0-9_.-]+), /.exec(driver.detail ?? '')?.[1] ?? 'a unique property';
}
