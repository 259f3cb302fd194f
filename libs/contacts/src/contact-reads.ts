import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { assertIds } from './contact-ids';
import { ContactJsonCache } from './contact-json.cache';
import { ContactView, presentContact } from './contact.presenter';
import { ContactRow, ContactsRepository, PageRef } from './contacts.repository';
import { decodeCursor, encodeCursor } from './contacts-list.cursor';
import { assertStatusFilter, hasFilters, ListContactsQuery, validateListQuery } from './contacts-list.query';
import { countMatching, listPageRows, pageOrder, pageQueries } from './contacts-list.sql';
import type { ContactPage } from './contacts.service';

/**
 * The reads of a company's contacts (ContactsService answers them through this): a page of a
 * funnel's contacts and one contact, as objects or as the API's JSON text, kept in
 * ContactJsonCache by version. A funnel or contact of another company is a 404, like a missing one.
 */
@Injectable()
export class ContactReads {
  constructor(
    private readonly funnels: FunnelsService,
    private readonly rows: ContactsRepository,
    private readonly cache: ContactJsonCache,
  ) {}

  /**
   * One page of the funnel's contacts under the filters, by page number (OFFSET) or by the cursor
   * of the previous page (keyset: the same cost at any depth). `total` is the funnel's kept count,
   * or with filters the count of matching contacts.
   */
  async list(companyId: string, funnelId: string, query: ListContactsQuery): Promise<ContactPage> {
    return JSON.parse(await this.listJson(companyId, funnelId, query)) as ContactPage;
  }

  /** The page of `list` as the JSON text of the API's answer. */
  async listJson(companyId: string, funnelId: string, query: ListContactsQuery): Promise<string> {
    assertIds({ funnelId });
    const filters = validateListQuery(query);
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    assertStatusFilter(filters, funnel.contactStatuses);
    const { limit, sortField, sortOrder } = query;
    const after = query.cursor ? decodeCursor(query.cursor, sortField, sortOrder, filters) : undefined;
    const page = after?.page ?? query.page;
    const manager = this.rows.reader;
    const { first, then } = pageQueries(funnelId, query, filters, after);
    let total: number;
    let refs: PageRef[];
    if (!hasFilters(filters) && !then) {
      // The common case, one statement: the page's contacts and their versions, and the kept total.
      ({ total, rows: refs } = await this.rows.page(
        first,
        companyId,
        pageOrder(query, 'r'),
        after ? undefined : page * limit,
      ));
    } else {
      total = hasFilters(filters)
        ? await countMatching(manager, funnelId, filters)
        : await this.rows.count(funnelId);
      // Past the last contact there is nothing to read (and no huge OFFSET to send).
      refs =
        !after && page * limit >= total ? [] : await listPageRows(manager, funnelId, query, filters, after);
    }
    const hasNext = refs.length > limit;
    const shown = await this.contactsJson(companyId, funnelId, refs.slice(0, limit));
    const meta: ContactPage['meta'] = { page, limit, total, hasNext };
    if (hasNext) {
      const last = shown[shown.length - 1]?.ref ?? refs[limit - 1];
      meta.nextCursor = encodeCursor(sortField, sortOrder, filters, {
        value: last.sort_value,
        id: last.id,
        page: page + 1,
      });
    }
    return `{"data":[${shown.map((c) => c.json).join(',')}],"meta":${JSON.stringify(meta)}}`;
  }

  async get(companyId: string, funnelId: string, contactId: string): Promise<ContactView> {
    const row = await this.findRow(companyId, funnelId, contactId);
    return presentContact(row, row.messages);
  }

  /** The answer of GET …/contacts/{contactId} as JSON text: `{"data":…}` with the contact of `get`. */
  async getJson(companyId: string, funnelId: string, contactId: string): Promise<string> {
    await this.assertContactPath(companyId, funnelId, contactId);
    // A contact read before: its version alone says whether the kept text is still the contact,
    // which spares PostgreSQL parsing and planning the full read (every time, behind a pooler).
    if (this.cache.holds(contactId)) {
      const version = await this.rows.versionOf(companyId, funnelId, contactId);
      if (version === undefined) {
        this.cache.forget(contactId);
        throw new NotFoundError('Contact not found');
      }
      const json = this.cache.get(contactId, version);
      if (json !== undefined) return `{"data":${json}}`;
    }
    const row = await this.readRow(companyId, funnelId, contactId);
    return `{"data":${this.cache.get(row.id, row.version) ?? this.remember(row)}}`;
  }

  async findRow(companyId: string, funnelId: string, contactId: string): Promise<ContactRow> {
    await this.assertContactPath(companyId, funnelId, contactId);
    return this.readRow(companyId, funnelId, contactId);
  }

  /** 400 for a malformed id, 404 for a funnel of another company or none. */
  private async assertContactPath(companyId: string, funnelId: string, contactId: string): Promise<void> {
    assertIds({ funnelId, contactId });
    await this.funnels.findForCompany(companyId, funnelId);
  }

  private async readRow(companyId: string, funnelId: string, contactId: string): Promise<ContactRow> {
    const row = await this.rows.findOne(companyId, funnelId, contactId);
    if (!row) throw new NotFoundError('Contact not found');
    return row;
  }

  /**
   * The JSON text of each contact of a page, in its order: from the cache when the page read a
   * version it holds, otherwise read (one statement for all of them), presented and kept. A
   * contact erased since the page was read is left out.
   */
  async contactsJson(
    companyId: string,
    funnelId: string,
    refs: PageRef[],
  ): Promise<{ ref: PageRef; json: string }[]> {
    const json = refs.map((r) => (r.version === undefined ? undefined : this.cache.get(r.id, r.version)));
    const missing = refs.filter((_, i) => json[i] === undefined).map((r) => r.id);
    const read = new Map<string, string>();
    if (missing.length) {
      for (const row of await this.rows.byIds(companyId, funnelId, missing))
        read.set(row.id, this.remember(row));
    }
    return refs.flatMap((ref, i) => {
      const text = json[i] ?? read.get(ref.id);
      return text === undefined ? [] : [{ ref, json: text }];
    });
  }

  /** The contact's JSON text, kept for its version. */
  private remember(row: ContactRow): string {
    const json = JSON.stringify(presentContact(row, row.messages));
    this.cache.set(row.id, row.version, json);
    return json;
  }
}
