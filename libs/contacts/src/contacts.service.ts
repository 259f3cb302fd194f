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
import { ContactReads } from './contact-reads';
import { changesOf, validatePatchInput } from './contact-patch';
import { ContactPropertiesService } from './contact-properties.service';
import { ContactWritesRepository } from './contact-writes.repository';
import { BatchResult, ContactBatchWriter, refusingSharedValues } from './contacts-batch';
import { checkPropertyValue } from './property-types';
import { ContactsRepository, PageRef } from './contacts.repository';
import {
  assertIdempotencyKey,
  claimIdempotencyKey,
  fingerprint,
  pruneExpiredKeys,
  rememberResponse,
} from './idempotency';
import { ListContactsQuery } from './contacts-list.query';

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
    private readonly reads: ContactReads,
  ) {}

  /** One page of the funnel's contacts (see ContactReads.listJson). */
  list(companyId: string, funnelId: string, query: ListContactsQuery): Promise<ContactPage> {
    return this.reads.list(companyId, funnelId, query);
  }

  listJson(companyId: string, funnelId: string, query: ListContactsQuery): Promise<string> {
    return this.reads.listJson(companyId, funnelId, query);
  }

  get(companyId: string, funnelId: string, contactId: string): Promise<ContactView> {
    return this.reads.get(companyId, funnelId, contactId);
  }

  getJson(companyId: string, funnelId: string, contactId: string): Promise<string> {
    return this.reads.getJson(companyId, funnelId, contactId);
  }

  contactsJson(
    companyId: string,
    funnelId: string,
    refs: PageRef[],
  ): Promise<{ ref: PageRef; json: string }[]> {
    return this.reads.contactsJson(companyId, funnelId, refs);
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
}
