import { randomUUID } from 'node:crypto';
import { ConflictError, DomainException, ValidationError } from '@app/core';
import { ContactChange } from './automation-trigger';
import { newContactFields, validateCreateInput } from './contact-input';
import { changesOf, ContactPatch, FieldChange, mergePatches, validatePatchInput } from './contact-patch';
import { PropertyDefinitions, uniquePropertyViolated } from './contact-properties.repository';
import { NewContactRow, UpsertKey } from './contact-writes.repository';
import { ContactView, presentContact } from './contact.presenter';
import type { ContactRow } from './contacts.repository';
import type { PropertyValue } from './entities/contact.entity';

// The items of a batch: its envelope checked, each item's refusal or answer, its changes for the
// automations and its upsert key, apart from the writer's statements (ContactBatchWriter).

export const MAX_BATCH_CONTACTS = 100;
export const UPSERT_BY_STANDARD = ['email', 'phone'] as const;

/** The body of POST …/contacts/batch (REST) and the arguments of the MCP upsert_contacts tool. */
export interface BatchContactsInput {
  contacts: unknown[];
  upsertBy?: string;
  skipAutomationTrigger?: boolean;
}

/** The outcome of one item, in request order. */
export type BatchItemResult =
  | { index: number; status: 200 | 201; data: ContactView }
  | { index: number; status: number; error: string; details?: string[] };

export interface BatchResult {
  /** 200 when every item succeeded, 207 otherwise. */
  status: 200 | 207;
  body: { data: BatchItemResult[] };
  /** True when an earlier request with the same Idempotency-Key wrote the batch. */
  replayed: boolean;
}

/** An item's refusal: its status and message. */
export class ItemRefusal {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly details?: string[],
  ) {}
}

/** The items of one contact: one, or all the items of a batch sharing an upsert key. */
export interface Group {
  key?: string;
  indexes: number[];
  patches: ContactPatch[];
  /** The matched contact (an update) or the new one's id (a creation). */
  existing?: ContactRow;
  create?: NewContactRow;
  changes?: FieldChange[];
  skipAutomationTrigger: boolean;
  refusal?: ItemRefusal;
}

export const ENVELOPE = new Set(['contacts', 'upsertBy', 'skipAutomationTrigger']);

export const refused = (index: number, { status, error, details }: ItemRefusal): BatchItemResult => ({
  index,
  status,
  error,
  ...(details && details.length > 1 ? { details } : {}),
});

/** Each item's outcome in request order: 200 when every item succeeded, 207 otherwise. */
export function answer(
  groups: Group[],
  refusals: Map<number, ItemRefusal>,
  rows: Map<string, ContactRow>,
): Omit<BatchResult, 'replayed'> {
  const data: BatchItemResult[] = [];
  for (const group of groups) {
    const id = group.create?.id ?? group.existing?.id;
    const row = id ? (rows.get(id) ?? group.existing) : undefined;
    group.indexes.forEach((index, i) => {
      const refusal = group.refusal ?? refusals.get(index);
      if (refusal || !row) {
        data.push(refused(index, refusal!));
      } else {
        data.push({
          index,
          status: group.create && i === 0 ? 201 : 200,
          data: presentContact(row, row.messages),
        });
      }
    });
  }
  for (const [index, refusal] of refusals) {
    if (!data.some((d) => d.index === index)) data.push(refused(index, refusal));
  }
  data.sort((a, b) => a.index - b.index);
  return { status: data.every((d) => d.status < 300) ? 200 : 207, body: { data } };
}

/** The envelope's own checks: any problem is a plain 400 for the whole request, and nothing changes. */
export function checkEnvelope(input: unknown): BatchContactsInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError('the request body must be a JSON object');
  }
  const body = input as Record<string, unknown>;
  const problems = Object.keys(body)
    .filter((k) => !ENVELOPE.has(k))
    .map((k) => `${k} is not a recognised field`);
  const contacts = body.contacts;
  if (!Array.isArray(contacts) || !contacts.length || contacts.length > MAX_BATCH_CONTACTS) {
    problems.push(`contacts must be an array of 1 to ${MAX_BATCH_CONTACTS} contacts`);
  }
  if (body.upsertBy !== undefined && (typeof body.upsertBy !== 'string' || !body.upsertBy)) {
    problems.push('upsertBy must be email, phone or the name of a unique property');
  }
  const skip = body.skipAutomationTrigger;
  if (skip !== undefined && typeof skip !== 'boolean')
    problems.push('skipAutomationTrigger must be a boolean');
  if (problems.length) throw new ValidationError(problems[0], problems);
  return body as unknown as BatchContactsInput;
}

export function upsertKeyOf(
  upsertBy: string | undefined,
  definitions: PropertyDefinitions,
): UpsertKey | undefined {
  if (upsertBy === undefined) return undefined;
  if ((UPSERT_BY_STANDARD as readonly string[]).includes(upsertBy))
    return { kind: upsertBy as 'email' | 'phone' };
  if (definitions.get(upsertBy)?.unique) return { kind: 'property', name: upsertBy };
  const unique = [...definitions.values()].filter((d) => d.unique).map((d) => d.name);
  const message = `upsertBy must be email, phone or a unique property of the funnel${unique.length ? ` (${unique.join(', ')})` : ''}`;
  throw new ValidationError(message, [message]);
}

/** Without upsertBy, each item is a new contact, checked as the single create checks it. */
export function newContacts(
  envelope: BatchContactsInput,
  statuses: readonly string[],
  definitions: PropertyDefinitions,
  refusals: Map<number, ItemRefusal>,
): Group[] {
  const groups: Group[] = [];
  envelope.contacts.forEach((item, index) => {
    const body =
      typeof item === 'object' && item !== null && !Array.isArray(item)
        ? (item as Record<string, unknown>)
        : undefined;
    if (!body) return void refusals.set(index, new ItemRefusal(400, 'the contact must be a JSON object'));
    const { properties, ...rest } = body;
    const problems: string[] = [];
    const created = attempt(() => validateCreateInput(rest, statuses));
    if (created instanceof ItemRefusal) problems.push(...(created.details ?? [created.error]));
    const typed = attempt(() => validatePatchInput({ properties }, statuses, definitions));
    if (typed instanceof ItemRefusal) problems.push(...(typed.details ?? [typed.error]));
    if (problems.length) return void refusals.set(index, new ItemRefusal(400, problems[0], problems));
    const { fields, skipAutomationTrigger } = created as ReturnType<typeof validateCreateInput>;
    groups.push({
      indexes: [index],
      patches: [],
      create: { id: randomUUID(), fields, properties: withoutRemovals((typed as ContactPatch).properties) },
      skipAutomationTrigger: envelope.skipAutomationTrigger === true || skipAutomationTrigger,
    });
  });
  return groups;
}

/**
 * An upsert group becomes a change of the contact it matched (the rules of PATCH) or a new
 * contact (the rules of the single create, on the fields its items carry).
 */
export function decide(group: Group, statuses: readonly string[]): void {
  if (group.create || group.refusal) return;
  const patch = mergePatches(group.patches);
  if (group.existing) {
    const changes = attempt(() => changesOf(group.existing!, patch));
    if (changes instanceof ItemRefusal) group.refusal = changes;
    else group.changes = changes;
    return;
  }
  const properties = withoutRemovals(patch.properties);
  // The items' fields passed their own checks (validatePatchInput): what is left is the create's.
  const fields = attempt(() => newContactFields(patch.fields, statuses));
  if (fields instanceof ItemRefusal) group.refusal = fields;
  else group.create = { id: randomUUID(), fields, properties };
}

export function automationChanges(
  groups: Group[],
  tenant: { companyId: string; funnelId: string },
  occurredAt: Date,
): ContactChange[] {
  return groups
    .filter((g) => !g.skipAutomationTrigger)
    .flatMap((g): ContactChange[] =>
      g.create
        ? [{ kind: 'contact.created', ...tenant, contactId: g.create.id, occurredAt }]
        : (g.changes ?? []).map((c) => ({
            kind: 'field.changed',
            ...tenant,
            contactId: g.existing!.id,
            ...c,
            occurredAt,
          })),
    );
}

/**
 * The items' upsert keys as sent, for the lock that serialises writers of the same keys (before
 * the items are checked: a key that turns out invalid only locks for nothing).
 */
export function rawKeys(envelope: BatchContactsInput): string[] {
  const by = envelope.upsertBy!;
  return envelope.contacts.flatMap((item) => {
    const body = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const raw = (UPSERT_BY_STANDARD as readonly string[]).includes(by)
      ? body[by]
      : (body.properties as Record<string, unknown> | undefined)?.[by];
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') return [];
    const text = String(raw).trim();
    return [by === 'email' ? text.toLowerCase() : by === 'phone' ? text.replace(/\D/g, '') : text];
  });
}

/** The item's key as the database compares it (see ContactWritesRepository.keyExpression). */
export function keyOf(patch: ContactPatch, key: UpsertKey): string | undefined {
  if (key.kind === 'email') return patch.fields.email?.toLowerCase() ?? undefined;
  if (key.kind === 'phone') return patch.fields.phone?.replace(/\D/g, '') ?? undefined;
  const value = patch.properties[key.name];
  return value === undefined || value === null ? undefined : String(value);
}

/** A batch item is a body as for create: members sent null or empty are absent (they change nothing). */
export function presentMembers(item: unknown): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  const present = (entries: [string, unknown][]) =>
    Object.fromEntries(
      entries.filter(
        ([k, v]) => v !== null && (typeof v !== 'string' || v.trim() !== '' || k === 'properties'),
      ),
    );
  const body = present(Object.entries(item));
  if (typeof body.address === 'object' && body.address !== null && !Array.isArray(body.address)) {
    body.address = present(Object.entries(body.address));
  }
  return body;
}

export function withoutRemovals(
  properties: Record<string, PropertyValue | null>,
): Record<string, PropertyValue> {
  return Object.fromEntries(Object.entries(properties).filter(([, v]) => v !== null)) as Record<
    string,
    PropertyValue
  >;
}

export function attempt<T>(run: () => T): T | ItemRefusal {
  try {
    return run();
  } catch (error) {
    if (error instanceof DomainException) return new ItemRefusal(error.status, error.message, error.details);
    throw error;
  }
}

export const sharedValueMessage = (name: string) =>
  `properties.${name} is unique: another contact of the funnel already holds this value`;
export const sharedValueRefusal = (name: string) => new ItemRefusal(409, sharedValueMessage(name));

/** A write refused because another contact holds the value of a unique property: 409 naming it. */
export function sharedValue(name: string): ConflictError {
  return new ConflictError(sharedValueMessage(name));
}

/** Runs a write, answering 409 naming the property when the database refuses a shared unique value. */
export async function refusingSharedValues<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const name = uniquePropertyViolated(error);
    if (name) throw sharedValue(name);
    throw error;
  }
}
