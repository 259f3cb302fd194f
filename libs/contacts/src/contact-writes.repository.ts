import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { NewContactFields } from './contact-input';
import type { FieldChange } from './contact-patch';
import { STANDARD_FIELDS, type StandardField } from './contact-rules';
import { ContactRow, ContactsRepository } from './contacts.repository';
import { Contact, PropertyValue } from './entities/contact.entity';

/** A contact to insert: its fields, typed properties and the id chosen for it. */
export interface NewContactRow {
  id: string;
  fields: NewContactFields;
  properties: Record<string, PropertyValue>;
}

/**
 * The change of one locked contact (as read under its lock): its changed fields as changesOf found
 * them. Read with its messages, it keeps them: a message's insert waits for the contact's lock (its
 * foreign key and the contact's touch), so none is added before the commit.
 */
export interface ContactUpdate {
  contact: Contact & { messages?: ContactRow['messages'] };
  changes: FieldChange[];
}

/** How an upsert key finds a contact: email (any case), phone (its digits) or a unique property. */
export type UpsertKey = { kind: 'email' } | { kind: 'phone' } | { kind: 'property'; name: string };

/**
 * The set-based writes of PATCH and batch: many contacts in one statement each, in the caller's
 * transaction. Column lists come from the entity's metadata, as in ContactsRepository.
 */
@Injectable()
export class ContactWritesRepository {
  private columnNames?: Map<string, string>;
  /** Prepared statement names by statement text. */
  private readonly statementNames = new Map<string, string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly rows: ContactsRepository,
  ) {}

  // Read on first use: the admin CLI builds its providers before it opens the database.
  private get columns(): Map<string, string> {
    return (this.columnNames ??= new Map(
      this.dataSource.getMetadata(Contact).columns.map((c) => [c.propertyName, c.databaseName]),
    ));
  }

  /**
   * Runs a statement of the caller's transaction as a named (prepared) statement: PostgreSQL parses
   * and plans it once per connection, not once per batch. Errors are TypeORM's, as manager.query
   * throws them (uniquePropertyViolated and the outage check read them).
   */
  private async prepared<T>(manager: EntityManager, text: string, values: unknown[]): Promise<T[]> {
    let name = this.statementNames.get(text);
    if (!name) {
      name = `contacts_write_${createHash('sha1').update(text).digest('base64url')}`;
      this.statementNames.set(text, name);
    }
    const client = (await manager.queryRunner!.connect()) as PoolClient;
    try {
      return (await client.query({ name, text, values })).rows as T[];
    } catch (error) {
      throw new QueryFailedError(text, values, error as Error);
    }
  }

  /** Contact `c` of funnel `$1` as the presenter reads it, with its messages and version. */
  private row(): string {
    return `${this.rows.selectList()}, ${ContactsRepository.messages('$1')} AS messages, c.xmin::text AS version`;
  }

  /** The expression of the upsert key of contact `c`, as the list's filters compare it (index-backed). */
  static keyExpression(key: UpsertKey): string {
    if (key.kind === 'email') return 'lower(c.email)';
    if (key.kind === 'phone') return "regexp_replace(c.phone, '\\D', '', 'g')";
    return 'c.properties ->> $3';
  }

  /**
   * Takes, until the caller commits, the funnel's property definitions lock (shared, see
   * ContactPropertiesService) and the locks of the upsert keys of a batch (so no two batches
   * create one contact twice), in one order so two batches never wait on each other; answers
   * whether `noRuns` holds for the funnel, and the value of `read` (an SQL expression on the
   * funnel's id) when given.
   */
  async lockForBatch(
    manager: EntityManager,
    funnelId: string,
    batch: {
      scope?: string;
      keys: string[];
      noRuns: (funnelIdSql: string) => string;
      read?: (funnelIdSql: string) => string;
    },
  ): Promise<{ noRuns: boolean; read?: unknown }> {
    const rows = await this.prepared<{ noRuns: boolean; read?: unknown }>(
      manager,
      `SELECT pg_advisory_xact_lock_shared(contact_properties_lock_key($1))::text AS definitions,
              (SELECT string_agg(pg_advisory_xact_lock(h)::text, '') FROM (
                 SELECT DISTINCT hashtextextended($2 || v, 0) AS h FROM unnest($3::text[]) AS v ORDER BY h) k) AS keys,
              ${batch.noRuns('$1::uuid')} AS "noRuns"${batch.read ? `, ${batch.read('$1::uuid')} AS read` : ''}`,
      [funnelId, `contact_upsert:${funnelId}:${batch.scope ?? ''}:`, batch.keys],
    );
    return rows[0];
  }

  /**
   * The funnel's contacts whose key is one of `values`, locked for update, with their key: the
   * oldest first, so the first of each key is the one an upsert updates.
   */
  async lockMatches(
    manager: EntityManager,
    funnelId: string,
    key: UpsertKey,
    values: string[],
  ): Promise<(ContactRow & { key: string })[]> {
    if (!values.length) return [];
    const expression = ContactWritesRepository.keyExpression(key);
    const params: unknown[] = [funnelId, values];
    let from = 'contacts c';
    if (key.kind === 'property') {
      params.push(key.name);
      // The unique values' own index finds the holders.
      from = `contact_unique_values u JOIN contacts c ON c.id = u.contact_id AND c.funnel_id = u.funnel_id`;
    }
    const where =
      key.kind === 'property'
        ? `u.funnel_id = $1 AND u.property_name = $3
           AND u.value_key IN (SELECT sha256(convert_to(v, 'UTF8')) FROM unnest($2::text[]) AS v)`
        : `c.funnel_id = $1 AND ${expression} = ANY($2::text[])`;
    return this.prepared(
      manager,
      `SELECT ${expression} AS key, ${this.row()} FROM ${from} WHERE ${where}
       ORDER BY c.created_at, c.id FOR UPDATE OF c`,
      params,
    );
  }

  /**
   * Inserts the contacts (meta.ps_source external-api, converted `now`) in one statement. It
   * returns only what the database makes of them (properties as stored, the timestamps, the
   * version); the other columns are the text just written, so 50 whole rows are not read back.
   */
  async insertMany(
    manager: EntityManager,
    tenant: { companyId: string; funnelId: string },
    contacts: NewContactRow[],
    now: Date,
  ): Promise<ContactRow[]> {
    if (!contacts.length) return [];
    const fields = ['status', ...STANDARD_FIELDS.filter((f) => f !== 'status')];
    const columns = fields.map((f) => this.columns.get(f)!);
    const records = contacts.map((c) => ({ id: c.id, properties: c.properties, ...c.fields }));
    const meta = { ps_source: 'external-api' };
    const returned = (['id', 'properties', 'createdAt', 'updatedAt'] as const)
      .map((p) => `c.${this.columns.get(p)!} AS "${p}"`)
      .join(', ');
    const rows = await this.prepared<
      Pick<ContactRow, 'id' | 'properties' | 'createdAt' | 'updatedAt' | 'version'>
    >(
      manager,
      `INSERT INTO contacts AS c (id, funnel_id, company_id, converted_at, meta, utm_params, properties, ${columns.join(', ')})
       SELECT r.id, $2, $3, $4, $5::jsonb, '{}', r.properties, ${fields.map((f) => `r."${f}"`).join(', ')}
       FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, properties jsonb, ${fields.map((f) => `"${f}" text`).join(', ')})
       RETURNING ${returned}, c.xmin::text AS version`,
      [JSON.stringify(records), tenant.funnelId, tenant.companyId, now, JSON.stringify(meta)],
    );
    const written = new Map(contacts.map((c) => [c.id, c.fields]));
    return rows.map(
      (row) =>
        ({
          ...written.get(row.id)!,
          funnelId: tenant.funnelId,
          companyId: tenant.companyId,
          name: null,
          fullAddress: null,
          timezone: null,
          convertedAt: now,
          meta: { ...meta },
          utmParams: {},
          messages: [],
          ...row,
        }) as ContactRow,
    );
  }

  /**
   * Writes the changes of locked contacts in one statement: the changed columns, properties
   * merged (null removes), meta.ps_user_edited_at, and one field-value record per changed field
   * (its id made here: cheaper than the database's generator, which counted at 150 records a call).
   * Answers the written contacts with their messages. The statement returns only what the
   * database makes of the change (merged JSON, updated_at, version, and the messages unless every
   * contact was read with them): the other columns are the locked row's, or the changed text as
   * written.
   */
  async updateMany(
    manager: EntityManager,
    funnelId: string,
    updates: ContactUpdate[],
    now: Date,
  ): Promise<ContactRow[]> {
    const written = updates.filter((u) => u.changes.length);
    if (!written.length) return [];
    const standard = new Set<string>(STANDARD_FIELDS);
    const records = written.map(({ contact: { id }, changes }) => {
      const fields: Record<string, string | null> = {};
      const set: Record<string, PropertyValue> = {};
      const removed: string[] = [];
      for (const { fieldName, value } of changes) {
        if (standard.has(fieldName)) fields[fieldName] = value as string | null;
        else if (value === null) removed.push(fieldName);
        else set[fieldName] = value;
      }
      const history = changes.map((c) => ({
        id: randomUUID(),
        name: c.fieldName,
        value: c.value === null ? '' : String(c.value),
      }));
      return { id, fields, set, removed, history };
    });
    const assignments = STANDARD_FIELDS.map((f: StandardField) => {
      const column = this.columns.get(f)!;
      return `${column} = CASE WHEN r.fields ? '${f}' THEN r.fields ->> '${f}' ELSE c.${column} END`;
    });
    const returned = (['id', 'properties', 'meta', 'updatedAt'] as const)
      .map((p) => `c.${this.columns.get(p)!} AS "${p}"`)
      .join(', ');
    const messages = written.every((u) => u.contact.messages)
      ? ''
      : `, ${ContactsRepository.messages('$2')} AS messages`;
    const rows = await this.prepared<
      Pick<ContactRow, 'id' | 'properties' | 'meta' | 'updatedAt' | 'version'> &
        Partial<Pick<ContactRow, 'messages'>>
    >(
      manager,
      `WITH r AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, fields jsonb, set jsonb, removed text[], history jsonb)
       ), written AS (
         UPDATE contacts c SET ${assignments.join(', ')},
           properties = (c.properties || r.set) - r.removed, meta = c.meta || $3::jsonb
         FROM r WHERE c.id = r.id AND c.funnel_id = $2
         RETURNING ${returned}${messages}, c.xmin::text AS version
       ), recorded AS (
         INSERT INTO contact_field_values (id, funnel_id, contact_id, field_name, value, created_at)
         SELECT h.id, $2, r.id, h.name, h.value, $4 FROM r
         CROSS JOIN LATERAL jsonb_to_recordset(r.history) AS h(id uuid, name text, value text)
         WHERE r.id IN (SELECT id FROM written)
       )
       SELECT * FROM written`,
      [JSON.stringify(records), funnelId, JSON.stringify({ ps_user_edited_at: now.toISOString() }), now],
    );
    const before = new Map(written.map((u, i) => [u.contact.id, { ...u.contact, ...records[i].fields }]));
    return rows.map((row) => ({ ...before.get(row.id)!, ...row }) as ContactRow);
  }
}
