import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AutomationTrigger } from './automation-trigger';
import { NotFoundError, ValidationError } from '@app/core';
import { assertIds } from './contact-ids';
import { FunnelsService } from '@app/workspaces';
import { CreateContactInput, UpdateContactValueInput, validateCreateInput } from './contact-input';
import { ContactLinkEraser, eraseContact } from './contact-erasure';
import { AppliedChange, applyValueChange, validateValueInput } from './contact-value-change';
import { ContactValuesView, ContactView, presentContact } from './contact.presenter';
import { ContactJsonCache } from './contact-json.cache';
import { changesOf, validatePatchInput } from './contact-patch';
import { ContactPropertiesService } from './contact-properties.service';
import { ContactWritesRepository } from './contact-writes.repository';
import { BatchResult, ContactBatchWriter, refusingSharedValues } from './contacts-batch';
import { checkPropertyValue } from './property-types';
import { ContactRow, ContactsRepository, PageRef } from './contacts.repository';
import {
  assertIdempotencyKey,
  claimIdempotencyKey,
  fingerprint,
  pruneExpiredKeys,
  rememberResponse,
} from './idempotency';
import { decodeCursor, encodeCursor } from './contacts-list.cursor';
import { assertStatusFilter, hasFilters, ListContactsQuery, validateListQuery } from './contacts-list.query';
import { countMatching, listPageRows, pageOrder, pageQueries } from './contacts-list.sql';

export interface ContactPage {
  data: ContactView[];
  /** `nextCursor` is present exactly when `hasNext` is true. */
  meta: { page: number; limit: number; total: number; hasNext: boolean; nextCursor?: string };
}

export interface CreateContactResult {
  contact: ContactView;
  /** True when an earlier request with the same Idempotency-Key created the contact. */
  replayed: boolean;
}

/**
 * The CRM contacts of a company's funnels: the one place their rules live, used by the REST
 * controller and the MCP tools. Every method is scoped by the caller's company; a funnel or
 * contact of another company is reported exactly like a missing one (404).
 */
@Injectable()
export class ContactsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly funnels: FunnelsService,
    private readonly automations: AutomationTrigger,
    private readonly rows: ContactsRepository,
    private readonly links: ContactLinkEraser,
    private readonly cache: ContactJsonCache,
    private readonly properties: ContactPropertiesService,
    private readonly writes: ContactWritesRepository,
    private readonly batches: ContactBatchWriter,
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

  /**
   * Creates a contact (meta.ps_source external-api, converted now) and records `contact.created`
   * for automations in the same transaction unless `skipAutomationTrigger`. With an
   * idempotency key, a repeat of the same request answers the first result (`replayed: true`)
   * and creates nothing; the same key with a different request is refused with 422.
   */
  async create(
    companyId: string,
    funnelId: string,
    input: CreateContactInput,
    options: { idempotencyKey?: string } = {},
  ): Promise<CreateContactResult> {
    assertIds({ funnelId });
    const key = options.idempotencyKey;
    if (key !== undefined) assertIdempotencyKey(key);
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    const { fields, skipAutomationTrigger } = validateCreateInput(input, funnel.contactStatuses);
    await this.properties.settled(funnelId);

    const row = { ...fields, funnelId, companyId, convertedAt: new Date() };
    // Without an idempotency key, and while no automation can fire, the insert is its own
    // transaction: one round trip. Otherwise it is made again below, with the runs.
    if (key === undefined) {
      const guard = skipAutomationTrigger
        ? undefined
        : (funnel: string) => this.automations.noRunsCondition(funnel);
      const contact = await this.rows.insert(this.rows.pooled, row, guard);
      if (contact) return { contact: presentContact(contact, []), replayed: false };
    }

    return this.dataSource.transaction(async (manager) => {
      const requestFingerprint = fingerprint(`POST /v1/funnels/${funnelId}/contacts`, input);
      if (key !== undefined) {
        await pruneExpiredKeys(manager, companyId);
        const previous = await claimIdempotencyKey(manager, companyId, key, requestFingerprint);
        if (previous) return { contact: (previous.body as { data: ContactView }).data, replayed: true };
      }
      const contact = (await this.rows.insert((text, values) => manager.query(text, values), row))!;
      if (!skipAutomationTrigger) {
        await this.automations.record(manager, [
          {
            kind: 'contact.created',
            companyId,
            funnelId,
            contactId: contact.id,
            occurredAt: row.convertedAt,
          },
        ]);
      }
      const view = presentContact(contact, []);
      if (key !== undefined)
        await rememberResponse(manager, companyId, key, { status: 201, body: { data: view } });
      return { contact: view, replayed: false };
    });
  }

  /**
   * Writes one field (standard field, `zip` alias, or custom property), keeps the change as a
   * field-value record, sets meta.ps_user_edited_at, and records `field.changed` for automations
   * in the same transaction when the value actually changed (unless `skipAutomationTrigger`).
   */
  async updateValue(
    companyId: string,
    funnelId: string,
    contactId: string,
    input: UpdateContactValueInput,
  ): Promise<ContactValuesView> {
    assertIds({ funnelId, contactId });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    const change = validateValueInput(input, funnel.contactStatuses);
    await this.properties.settled(funnelId);
    const noRuns = (funnelIdSql: string) => this.automations.noRunsCondition(funnelIdSql);
    const view = ({ record }: AppliedChange): ContactValuesView => ({
      id: record.id,
      fieldName: record.fieldName,
      value: record.value,
      updatedAt: record.createdAt.toISOString(),
    });

    // While no automation can fire, a standard field's contact is read unlocked and written only if
    // unchanged since, in one statement each; a row written in between, or an automation enabled,
    // sends the change down the locked path below, which checks the rules again. A property's
    // value is checked against its definition, which only the locked path holds still.
    if (change.field.kind === 'standard') {
      const read = await this.rows.findForChange(companyId, funnelId, contactId, noRuns);
      if (!read) throw new NotFoundError('Contact not found');
      if (change.skipAutomationTrigger || read.noRuns) {
        const applied = await applyValueChange(this.dataSource.manager, read, change, {
          locked: false,
          version: read.version,
          condition: change.skipAutomationTrigger ? undefined : noRuns,
        });
        if (applied) return view(applied);
      }
    }

    return refusingSharedValues(() =>
      this.dataSource.transaction(async (manager: EntityManager) => {
        if (change.field.kind === 'property') {
          const definitions = await this.properties.definitionsForWrite(manager, funnelId);
          const name = change.field.name;
          const checked = checkPropertyValue(change.value, definitions.get(name), 'value');
          if (checked.problem !== undefined)
            throw new ValidationError(`${checked.problem} (property ${name})`);
          change.propertyValue = checked.value;
        }
        // Locked, so the previous value and the email-or-phone rule hold under concurrent writes.
        const contact = await this.rows.lock(manager, companyId, funnelId, contactId, noRuns);
        if (!contact) throw new NotFoundError('Contact not found');
        const applied = (await applyValueChange(manager, contact, change))!;
        const { record, previousValue, value, changed } = applied;
        if (changed && !change.skipAutomationTrigger && !contact.noRuns) {
          await this.automations.record(manager, [
            {
              kind: 'field.changed',
              companyId,
              funnelId,
              contactId,
              fieldName: record.fieldName,
              previousValue,
              value,
              occurredAt: record.createdAt,
            },
          ]);
        }
        return view(applied);
      }),
    );
  }

  /**
   * Changes many fields of a contact at once, in one transaction: each by the rule PUT …/values
   * applies to it (validatePatchInput, changesOf), all or nothing. Only the fields whose value
   * changes are written, kept as field-value records and offered to automations (one
   * `field.changed` each, unless `skipAutomationTrigger`). Answers the contact as it now is.
   */
  async patch(companyId: string, funnelId: string, contactId: string, input: unknown): Promise<ContactView> {
    assertIds({ funnelId, contactId });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    await this.properties.settled(funnelId);
    const noRuns = (funnelIdSql: string) => this.automations.noRunsCondition(funnelIdSql);
    const written = await refusingSharedValues(() =>
      this.dataSource.transaction(async (manager) => {
        const definitions = await this.properties.definitionsForWrite(manager, funnelId);
        const patch = validatePatchInput(input, funnel.contactStatuses, definitions);
        const contact = await this.rows.lock(manager, companyId, funnelId, contactId, noRuns);
        if (!contact) throw new NotFoundError('Contact not found');
        const changes = changesOf(contact, patch);
        const now = new Date();
        const [row] = await this.writes.updateMany(manager, funnelId, [{ contact, changes }], now);
        if (row && !patch.skipAutomationTrigger && !contact.noRuns) {
          await this.automations.record(
            manager,
            changes.map((c) => ({
              kind: 'field.changed',
              companyId,
              funnelId,
              contactId,
              ...c,
              occurredAt: now,
            })),
          );
        }
        return row;
      }),
    );
    // Nothing changed: the contact as it is.
    const row = written ?? (await this.rows.findOne(companyId, funnelId, contactId));
    if (!row) throw new NotFoundError('Contact not found');
    return presentContact(row, row.messages);
  }

  /**
   * Creates or updates up to MAX_BATCH_CONTACTS contacts in one transaction, each item standing
   * alone (see ContactBatchWriter); with an idempotency key, a repeat answers the first result.
   */
  batch(
    companyId: string,
    funnelId: string,
    input: unknown,
    options: { idempotencyKey?: string } = {},
  ): Promise<BatchResult> {
    return this.batches.run(companyId, funnelId, input, options);
  }

  /**
   * Erases the contact and everything that holds its personal data, in one transaction (see
   * eraseContact), and records `contact.deleted` (ids only) for automations and hooks.
   */
  async erase(companyId: string, funnelId: string, contactId: string): Promise<void> {
    assertIds({ funnelId, contactId });
    await this.funnels.findForCompany(companyId, funnelId);
    await this.properties.settled(funnelId);
    await this.dataSource.transaction(async (manager) => {
      // Locked, so a concurrent write cannot add to what is being erased.
      const contact = await this.rows.lockForErasure(manager, companyId, funnelId, contactId);
      if (!contact) throw new NotFoundError('Contact not found');
      await eraseContact(manager, contact, this.automations, this.links);
      // Other replicas drop its text once unread for CONTACT_JSON_IDLE_MS; it is never shown again.
      this.cache.forget(contactId);
      await this.automations.record(manager, [
        { kind: 'contact.deleted', companyId, funnelId, contactId, occurredAt: new Date() },
      ]);
    });
  }

  private async findRow(companyId: string, funnelId: string, contactId: string): Promise<ContactRow> {
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
