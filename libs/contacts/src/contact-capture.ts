import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { AutomationTrigger } from './automation-trigger';
import { assertIds } from './contact-ids';
import { NewContactFields, validateCreateInput } from './contact-input';
import { ContactWritesRepository } from './contact-writes.repository';
import { ADDRESS_FIELDS } from './contact.presenter';
import { ContactPropertiesService } from './contact-properties.service';
import { ContactsRepository } from './contacts.repository';
import { Contact, ContactMeta, PropertyValue, UtmParams } from './entities/contact.entity';
import { checkPropertyValue } from './property-types';

/** The fields a lead form may give: the contact's own, flat (address parts by name), and fullAddress. */
export const FORM_FIELDS = [
  'email',
  'phone',
  'firstName',
  'lastName',
  'website',
  'birthday',
  'fullAddress',
  ...ADDRESS_FIELDS,
] as const;
const MAX_FULL_ADDRESS_LENGTH = 1000;

/** What a funnel learnt of a lead: its form's fields, and what the service adds (meta, UTM, answers). */
export interface CapturedLead {
  /** The form's fields by name: those of FORM_FIELDS are checked as POST …/contacts checks them, others left out. */
  fields: Record<string, unknown>;
  meta: ContactMeta;
  utmParams: UtmParams;
  /** Custom properties (the form's answers); a value its property's definition refuses is left out. */
  properties: Record<string, string>;
}

/** Service-managed members a session gives a contact that already exists. */
export interface SessionDetails {
  meta: ContactMeta;
  utmParams: UtmParams;
}

/**
 * Contacts that funnel pages capture: a lead creates its contact, or fills the empty fields of
 * the funnel's contact with its email or phone (the oldest), never overwriting a value a user or
 * the API set. A creation records `contact.created` for automations and webhooks, as
 * ContactsService.create does.
 */
@Injectable()
export class ContactCaptureService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly funnels: FunnelsService,
    private readonly automations: AutomationTrigger,
    private readonly rows: ContactsRepository,
    private readonly writes: ContactWritesRepository,
    private readonly properties: ContactPropertiesService,
  ) {}

  /** Creates or fills the lead's contact; answers its id and whether it was created. */
  async capture(
    companyId: string,
    funnelId: string,
    lead: CapturedLead,
  ): Promise<{ contactId: string; created: boolean }> {
    assertIds({ funnelId });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    const { fields, fullAddress } = checkFormFields(lead.fields, funnel.contactStatuses);
    const keys = [
      fields.email && `email:${fields.email.toLowerCase()}`,
      fields.phone && `phone:${digits(fields.phone)}`,
    ];
    const noRuns = (funnelIdSql: string) => this.automations.noRunsCondition(funnelIdSql);
    return this.dataSource.transaction(async (manager) => {
      // The same keys as a batch upsert takes: no two writers create one contact twice.
      // The funnel's automations are read with the locks: one round trip less.
      const locked = await this.writes.lockForBatch(manager, funnelId, {
        keys: keys.filter((k): k is string => !!k),
        noRuns,
        read: (funnelIdSql) => this.automations.newContactsRead(funnelIdSql),
      });
      const properties = await this.fittingProperties(manager, funnelId, lead.properties);
      const existing = await this.match(manager, funnelId, fields);
      if (existing) {
        await this.fill(manager, funnelId, existing.id, {
          meta: lead.meta,
          utmParams: lead.utmParams,
          fields,
          fullAddress,
          properties,
        });
        return { contactId: existing.id, created: false };
      }
      const row = { ...fields, fullAddress, companyId, funnelId, properties, convertedAt: new Date() };
      const contactId = await this.insert(
        manager,
        { ...row, meta: lead.meta, utmParams: lead.utmParams },
        locked,
      );
      return { contactId, created: true };
    });
  }

  /**
   * Inserts the new contact and records its `contact.created`. The insert locks the funnel's
   * contact count until the commit, and every other new contact of the funnel waits for it: what
   * can be read is read before, and only the runs' insert follows it.
   */
  private async insert(
    manager: EntityManager,
    row: Parameters<ContactsRepository['insert']>[1] & {
      companyId: string;
      funnelId: string;
      convertedAt: Date;
    },
    locked: { noRuns: boolean; read?: unknown },
  ): Promise<string> {
    const { companyId, funnelId, convertedAt } = row;
    const recordRuns = locked.noRuns
      ? undefined
      : await this.automations.forNewContacts(manager, [funnelId], locked.read);
    const contact = (await this.rows.insert((text, values) => manager.query(text, values), row))!;
    await recordRuns?.(
      [{ kind: 'contact.created', companyId, funnelId, contactId: contact.id, occurredAt: convertedAt }],
      [contact],
    );
    return contact.id;
  }

  /** Fills the contact's empty service-managed members from its session (a conversion naming it). */
  async fillFromSession(funnelId: string, contactId: string, details: SessionDetails): Promise<void> {
    await this.dataSource.transaction((manager) =>
      this.fill(manager, funnelId, contactId, { ...details, properties: {} }),
    );
  }

  /** The funnel's oldest contact with the email, else with the phone. */
  private async match(manager: EntityManager, funnelId: string, fields: NewContactFields) {
    if (fields.email) {
      const [byEmail] = await this.writes.lockMatches(manager, funnelId, { kind: 'email' }, [
        fields.email.toLowerCase(),
      ]);
      if (byEmail) return byEmail;
    }
    if (!fields.phone) return undefined;
    const [byPhone] = await this.writes.lockMatches(manager, funnelId, { kind: 'phone' }, [
      digits(fields.phone),
    ]);
    return byPhone;
  }

  private async fittingProperties(manager: EntityManager, funnelId: string, values: Record<string, string>) {
    // A form without answers has nothing for the definitions to check.
    if (!Object.keys(values).length) return {};
    const definitions = await this.properties.definitionsHeld(manager, funnelId);
    const fitting: Record<string, PropertyValue> = {};
    for (const [name, raw] of Object.entries(values)) {
      const definition = definitions.get(name);
      // A unique property is an identity the form cannot claim; its value is left to the API.
      if (definition?.unique) continue;
      const checked = checkPropertyValue(raw, definition, name);
      if (checked.problem === undefined) fitting[name] = checked.value;
    }
    return fitting;
  }

  /** Sets what the contact lacks: empty columns, absent meta and property members, UTM if none. */
  private async fill(
    manager: EntityManager,
    funnelId: string,
    contactId: string,
    change: SessionDetails & {
      fields?: NewContactFields;
      fullAddress?: string | null;
      properties: Record<string, PropertyValue>;
    },
  ): Promise<void> {
    const columns = new Map(this.dataSource.getMetadata(Contact).columns.map((c) => [c.propertyName, c]));
    const values: unknown[] = [contactId, funnelId];
    const sets: string[] = [];
    const texts = { ...(change.fields ?? {}), fullAddress: change.fullAddress ?? null } as Record<
      string,
      unknown
    >;
    delete texts.status;
    for (const [name, value] of Object.entries(texts)) {
      if (value === null || value === undefined) continue;
      values.push(value);
      const column = columns.get(name)!.databaseName;
      sets.push(`${column} = COALESCE(c.${column}, $${values.length})`);
    }
    values.push(
      JSON.stringify(change.meta),
      JSON.stringify(change.utmParams),
      JSON.stringify(change.properties),
    );
    const [meta, utm, properties] = [values.length - 2, values.length - 1, values.length];
    await manager.query(
      `UPDATE contacts c SET ${[...sets, ''].join(', ')}
         meta = $${meta}::jsonb || c.meta,
         utm_params = CASE WHEN c.utm_params = '{}'::jsonb THEN $${utm}::jsonb ELSE c.utm_params END,
         properties = $${properties}::jsonb || c.properties,
         converted_at = COALESCE(c.converted_at, now()),
         updated_at = now()
       WHERE c.id = $1 AND c.funnel_id = $2`,
      values,
    );
  }
}

/** The form's fields checked by the rules of a new contact (status is the funnel's first). */
function checkFormFields(
  raw: Record<string, unknown>,
  statuses: readonly string[],
): { fields: NewContactFields; fullAddress: string | null } {
  const problems: string[] = [];
  const address: Record<string, unknown> = {};
  const input: Record<string, unknown> = { address };
  for (const [name, value] of Object.entries(raw)) {
    // A form's other inputs (consent, questions) are not the contact's: left out.
    if (!(FORM_FIELDS as readonly string[]).includes(name)) continue;
    else if ((ADDRESS_FIELDS as readonly string[]).includes(name)) address[name] = value;
    else if (name !== 'fullAddress') input[name] = value;
  }
  const full = raw.fullAddress;
  let fullAddress: string | null = null;
  if (full !== undefined && full !== null) {
    if (typeof full !== 'string' || full.trim().length > MAX_FULL_ADDRESS_LENGTH)
      problems.push(`fields.fullAddress must be a string of at most ${MAX_FULL_ADDRESS_LENGTH} characters`);
    else fullAddress = full.trim() || null;
  }
  if (problems.length) throw new ValidationError(problems[0], problems);
  return { fields: validateCreateInput(input, statuses).fields, fullAddress };
}

const digits = (phone: string) => phone.replace(/\D/g, '');
