import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ReadPool, selectList, sqlPool } from '@app/core';
import type { NewContactFields } from './contact-input';
import { sortValueText, type SqlQuery } from './contacts-list.sql';
import { Contact } from './entities/contact.entity';
import type { ContactMessage } from './entities/contact-message.entity';

/**
 * A contact row as the presenter reads it, with its messages (oldest first), and the version of
 * the row (`xmin`, changed by every write; see ContactJsonCache).
 */
export type ContactRow = Contact & { messages: ContactMessage[]; version: string };

/** A contact of a list page: its id, the row's version, and its sort value as the cursor keeps it. */
export interface PageRef {
  id: string;
  version?: string;
  sort_value: string | null;
}

/** The version of contact row `c`: its xmin, the transaction that wrote it. */
const VERSION = 'c.xmin::text AS version';

/**
 * The contacts SQL of the hot paths, without the ORM: each read is one statement that returns
 * the rows in the shape the presenter takes (messages aggregated beside their contact), sent as a
 * prepared statement. Column lists come from the entity's metadata, so they follow the entity.
 */
@Injectable()
export class ContactsRepository {
  private columns?: string;
  /** Prepared statement names by statement text: one per shape of page (sort field and order). */
  private readonly statementNames = new Map<string, string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly reads: ReadPool,
  ) {}

  /** `c."first_name" AS "firstName", ...` for every column of the entity. */
  selectList(): string {
    return (this.columns ??= selectList(this.dataSource, Contact, 'c'));
  }

  /**
   * The messages of contact `c` of funnel `funnel` (an SQL parameter), as a JSON array in the
   * presenter's order. The funnel is the parameter, not `c.funnel_id`: Citus routes a correlated
   * subquery to the funnel's shard only when it names the funnel itself.
   */
  static messages(funnel: string): string {
    return `coalesce((
      SELECT json_agg(json_build_object('id', m.id, 'name', m.name, 'type', m.type, 'content', m.content,
                                        'subject', m.subject, 'status', m.status, 'sentAt', m.sent_at,
                                        'deliveredAt', m.delivered_at, 'openedAt', m.opened_at,
                                        'clickedAt', m.clicked_at, 'clicks', m.clicks, 'failure', m.failure)
                      ORDER BY m.created_at, m.id)
      FROM contact_messages m WHERE m.contact_id = c.id AND m.funnel_id = ${funnel}), '[]')`;
  }

  async findOne(companyId: string, funnelId: string, contactId: string): Promise<ContactRow | undefined> {
    const { rows } = await this.reads.query<ContactRow>({
      name: 'contact_by_id',
      text: `SELECT ${this.selectList()}, ${ContactsRepository.messages('$2')} AS messages, ${VERSION}
             FROM contacts c WHERE c.id = $1 AND c.funnel_id = $2 AND c.company_id = $3`,
      values: [contactId, funnelId, companyId],
    });
    return rows[0];
  }

  /**
   * The version of the contact, without its columns: a statement that parses and plans in a
   * fraction of `findOne`'s, for a read whose text the cache may hold (see ContactJsonCache).
   */
  async versionOf(companyId: string, funnelId: string, contactId: string): Promise<string | undefined> {
    const { rows } = await this.reads.query<{ version: string }>({
      name: 'contact_version',
      text: `SELECT ${VERSION} FROM contacts c WHERE c.id = $1 AND c.funnel_id = $2 AND c.company_id = $3`,
      values: [contactId, funnelId, companyId],
    });
    return rows[0]?.version;
  }

  /**
   * A page of the list in one statement: the page's query (ids, `first` of pageQueries) joined to
   * the contacts for the tenant check and their versions, in the page's order, with the funnel's
   * kept total beside them. No column of a contact is read: ContactJsonCache has the texts of the
   * versions it saw, and `byIds` reads the others. `offset` gates the page on the total, so a page
   * past the end scans nothing. With no contact on the page, one row carries the total alone.
   */
  async page(
    first: SqlQuery,
    companyId: string,
    order: string,
    offset?: number,
  ): Promise<{ total: number; rows: PageRef[] }> {
    const values = [...first.params, companyId];
    const gate = offset === undefined ? '' : `AND t.total > $${values.push(offset)}`;
    const text = `SELECT t.total, r.id, r.version, r.sort_value FROM
         (SELECT coalesce((SELECT sum(contact_count) FROM funnel_contact_counts WHERE funnel_id = $1), 0) AS total) t
       LEFT JOIN LATERAL (
         SELECT q.sort_key, c.id, ${VERSION}, ${sortValueText('q')}
         FROM (${first.sql}) q JOIN contacts c ON c.id = q.id AND c.funnel_id = $1
         WHERE c.company_id = $${first.params.length + 1} ${gate}) r ON true
       ORDER BY ${order}`;
    // Prepared once per shape of page (sort field and order), so PostgreSQL parses it once.
    const result = await this.reads.query<PageRef & { total: string }>({
      name: this.statementName(text),
      text,
      values,
    });
    const rows = result.rows;
    return { total: Number(rows[0].total), rows: rows[0].id === null ? [] : rows };
  }

  private statementName(text: string): string {
    let name = this.statementNames.get(text);
    if (!name) {
      name = `contacts_page_${createHash('sha1').update(text).digest('base64url')}`;
      if (this.statementNames.size >= 256) this.statementNames.clear();
      this.statementNames.set(text, name);
    }
    return name;
  }

  /** The funnel's contacts with these ids and their messages, in the order of the ids. */
  async byIds(companyId: string, funnelId: string, ids: string[]): Promise<ContactRow[]> {
    const { rows } = await this.reads.query<ContactRow>({
      name: 'contacts_by_ids',
      text: `SELECT ${this.selectList()}, ${ContactsRepository.messages('$3')} AS messages, ${VERSION}
             FROM unnest($1::uuid[]) WITH ORDINALITY AS p(id, n) JOIN contacts c ON c.id = p.id
             WHERE c.funnel_id = $3 AND c.company_id = $2 ORDER BY p.n`,
      values: [ids, companyId, funnelId],
    });
    return rows;
  }

  /**
   * Inserts the contact with one statement. With a condition, nothing is written unless it holds
   * (undefined says so): one statement sees one snapshot, so a guarded insert outside a transaction
   * is as atomic as the check and insert inside one, and costs one round trip.
   */
  async insert(
    run: (text: string, values: unknown[]) => Promise<Contact[]>,
    contact: NewContactFields & { funnelId: string; companyId: string; convertedAt: Date } & Partial<
        Pick<Contact, 'fullAddress' | 'meta' | 'utmParams' | 'properties'>
      >,
    /** An SQL condition on `$funnelId`; when false nothing is written. */
    condition?: (funnelIdSql: string) => string,
  ): Promise<Contact | undefined> {
    const values: Record<string, unknown> = {
      ...contact,
      // Only a funnel's capture (ContactCaptureService) gives its own; the API's contacts are external-api.
      meta: contact.meta ?? { ps_source: 'external-api' },
      utmParams: contact.utmParams ?? {},
      properties: contact.properties ?? {},
    };
    const names = Object.keys(values);
    const columns = new Map(this.dataSource.getMetadata(Contact).columns.map((c) => [c.propertyName, c]));
    // INSERT ... SELECT infers no parameter types from the target columns: each is cast to its own.
    const params = names.map((n, i) => `$${i + 1}::${String(columns.get(n)!.type)}`);
    const guard = condition ? `WHERE ${condition(`$${names.indexOf('funnelId') + 1}::uuid`)}` : '';
    const rows = await run(
      `INSERT INTO contacts AS c (${names.map((n) => columns.get(n)!.databaseName).join(', ')})
       SELECT ${params.join(', ')} ${guard}
       RETURNING ${this.selectList()}`,
      names.map((n) => values[n]),
    );
    return rows[0];
  }

  /**
   * The contact, locked for update in the caller's transaction, and whether `noRuns` holds for
   * its funnel (then the change need not be offered to the automations).
   */
  async lock(
    manager: EntityManager,
    companyId: string,
    funnelId: string,
    contactId: string,
    noRuns: (funnelIdSql: string) => string,
  ): Promise<(Contact & { noRuns: boolean }) | undefined> {
    const rows: (Contact & { noRuns: boolean })[] = await manager.query(
      `${this.changeSelect(noRuns)} FOR UPDATE OF c`,
      [contactId, funnelId, companyId],
    );
    return rows[0];
  }

  /**
   * The contact as `lock` reads it, with its version, but unlocked and outside a transaction: a
   * write guarded by that version holds only if nothing wrote the row since.
   */
  async findForChange(
    companyId: string,
    funnelId: string,
    contactId: string,
    noRuns: (funnelIdSql: string) => string,
  ): Promise<(Contact & { noRuns: boolean; version: string }) | undefined> {
    const { rows } = await sqlPool(this.dataSource).query<Contact & { noRuns: boolean; version: string }>({
      name: 'contact_for_change',
      text: this.changeSelect(noRuns),
      values: [contactId, funnelId, companyId],
    });
    return rows[0];
  }

  /** The contact a value change reads ($1 its id, $2 the funnel's, $3 the company's), its version, and `noRuns`. */
  private changeSelect(noRuns: (funnelIdSql: string) => string): string {
    // The funnel as the parameter, not c.funnel_id: Citus routes the locking read to one shard only so.
    return `SELECT ${this.selectList()}, ${noRuns('$2::uuid')} AS "noRuns", ${VERSION}
            FROM contacts c WHERE c.id = $1 AND c.funnel_id = $2 AND c.company_id = $3`;
  }

  /** The contact row, locked for update in the caller's transaction (erasure reads it whole). */
  lockForErasure(
    manager: EntityManager,
    companyId: string,
    funnelId: string,
    contactId: string,
  ): Promise<Contact | null> {
    return manager.findOne(Contact, {
      where: { id: contactId, funnelId, companyId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** How many contacts the funnel has, as kept by the count table. */
  async count(funnelId: string): Promise<number> {
    const rows = await this.reads.rows<{ contact_count: string | null }>(
      'SELECT sum(contact_count) AS contact_count FROM funnel_contact_counts WHERE funnel_id = $1',
      [funnelId],
    );
    return Number(rows[0]?.contact_count ?? 0);
  }

  /** Runs reads of the list's other shapes (filters, later pages) where ReadPool sends them. */
  readonly reader: Pick<EntityManager, 'query'> = {
    query: <T>(text: string, values?: unknown[]) => this.reads.rows(text, values) as Promise<T>,
  };

  /** Runs a statement on the pool (outside any transaction). */
  pooled = async <T>(text: string, values: unknown[]): Promise<T[]> =>
    (await sqlPool(this.dataSource).query(text, values)).rows as T[];
}
