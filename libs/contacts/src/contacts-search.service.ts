import { Injectable } from '@nestjs/common';
import { isUuid, LongWork, ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import type { ContactView } from './contact.presenter';
import { ContactPropertiesService } from './contact-properties.service';
import type { PropertyType } from './entities/contact-property-definition.entity';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';
import { decodeCursor, encodeCursor } from './contacts-list.cursor';
import { countMatching, listPageRows } from './contacts-list.sql';
import type { PropertyCopies, PropertyTypes, SearchValueType } from './contacts-search.fields';
import {
  canonicalGroups,
  SearchContactsInput,
  searchedPropertyNames,
  validateSearch,
} from './contacts-search.query';

/** How a defined property compares: enums and strings as text, dates as their YYYY-MM-DD text. */
const SEARCH_TYPES: Record<PropertyType, SearchValueType> = {
  string: 'text',
  enum: 'text',
  number: 'number',
  boolean: 'boolean',
  date: 'date',
};

export interface ContactSearchPage {
  data: ContactView[];
  /** `nextCursor` is present exactly when `hasNext` is true. */
  meta: { limit: number; total: number; hasNext: boolean; nextCursor?: string };
}

/**
 * Search over a funnel's contacts: filter groups OR-ed, filters in a group AND-ed, paged by cursor.
 * The list's query builder, cursors and render cache serve it; the list's filters are the special
 * case of one group of equality and range filters.
 */
@Injectable()
export class ContactsSearchService {
  constructor(
    private readonly funnels: FunnelsService,
    private readonly rows: ContactsRepository,
    private readonly contacts: ContactsService,
    private readonly properties: ContactPropertiesService,
    private readonly longWork: LongWork,
  ) {}

  async search(companyId: string, funnelId: string, input: SearchContactsInput): Promise<ContactSearchPage> {
    return JSON.parse(await this.searchJson(companyId, funnelId, input)) as ContactSearchPage;
  }

  /** The answer of `search` as JSON text, built like the list's. */
  async searchJson(companyId: string, funnelId: string, input: SearchContactsInput): Promise<string> {
    if (!isUuid(funnelId)) throw new ValidationError('funnelId must be a UUID');
    await this.funnels.findForCompany(companyId, funnelId);
    const { types, copies } = await this.propertyTypes(funnelId, searchedPropertyNames(input));
    const { groups, sortField, sortOrder, limit, cursor } = validateSearch(input, types, copies);
    const hashed = { search: canonicalGroups(groups) };
    const after = cursor ? decodeCursor(cursor, sortField, sortOrder, hashed) : undefined;
    const query = { sortField, sortOrder, limit, page: 0 };
    // A search may scan the whole funnel: one of the company's long-work connections runs it.
    const { total, refs } = await this.longWork.read(companyId, async (client) => {
      const manager = {
        query: async <T>(text: string, values?: unknown[]) => (await client.query(text, values)).rows as T,
      };
      return {
        total: groups.length
          ? await countMatching(manager, funnelId, groups)
          : await this.rows.count(funnelId),
        refs: await listPageRows(manager, funnelId, query, groups, after),
      };
    });
    const hasNext = refs.length > limit;
    const shown = await this.contacts.contactsJson(companyId, funnelId, refs.slice(0, limit));
    const meta: ContactSearchPage['meta'] = { limit, total, hasNext };
    if (hasNext) {
      const last = shown[shown.length - 1]?.ref ?? refs[limit - 1];
      meta.nextCursor = encodeCursor(sortField, sortOrder, hashed, {
        value: last.sort_value,
        id: last.id,
        page: (after?.page ?? 0) + 1,
      });
    }
    return `{"data":[${shown.map((c) => c.json).join(',')}],"meta":${JSON.stringify(meta)}}`;
  }

  /**
   * The types of the properties searched that have a definition (the others compare as text), and
   * which of them have a complete typed copy (their ranges read it; the others read properties).
   */
  private async propertyTypes(
    funnelId: string,
    names: string[],
  ): Promise<{ types: PropertyTypes; copies: PropertyCopies }> {
    const types = new Map<string, SearchValueType>();
    const copies = new Map<string, string>();
    if (!names.length) return { types, copies };
    const definitions = await this.properties.definitionsOf(funnelId);
    for (const name of names) {
      const definition = definitions.get(name);
      if (!definition) continue;
      types.set(name, SEARCH_TYPES[definition.type]);
      if (definition.valuesReady) copies.set(name, definition.valuesGeneration);
    }
    return { types, copies };
  }
}
