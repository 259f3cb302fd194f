import type { EntityManager } from 'typeorm';
import { ValidationError } from '@app/core';
import type { UpdateContactValueInput } from './contact-input';
import {
  checkStandardValue,
  MAX_PROPERTIES,
  MAX_PROPERTY_VALUE_LENGTH,
  ResolvedField,
  resolveFieldName,
  type StandardField,
} from './contact-rules';
import { Contact, PropertyValue } from './entities/contact.entity';

export interface ValueChange {
  field: ResolvedField;
  /** Trimmed; empty clears a standard field. */
  value: string;
  skipAutomationTrigger: boolean;
  /** A property's value as its definition stores it (checkPropertyValue); `value` when untyped. */
  propertyValue?: PropertyValue;
}

export interface AppliedChange {
  record: { id: string; contactId: string; fieldName: string; value: string; createdAt: Date };
  previousValue: PropertyValue;
  value: PropertyValue;
  changed: boolean;
}

/** Checks a PUT .../values body against every rule that does not need the contact itself. */
export function validateValueInput(input: UpdateContactValueInput, statuses: readonly string[]): ValueChange {
  const body = (input ?? {}) as unknown as Record<string, unknown>;
  const problems: string[] = [];
  if (body.fieldName === undefined || body.fieldName === null || body.fieldName === '') {
    problems.push('fieldName is required');
  } else if (typeof body.fieldName !== 'string') problems.push('fieldName must be a string');
  if (body.value === undefined || body.value === null) problems.push('value is required');
  else if (typeof body.value !== 'string') problems.push('value must be a string');
  const skip = body.skipAutomationTrigger;
  if (skip !== undefined && skip !== null && typeof skip !== 'boolean') {
    problems.push('skipAutomationTrigger must be a boolean');
  }
  if (problems.length) throw new ValidationError(problems[0], problems);

  const field = resolveFieldName(input.fieldName);
  const value = input.value.trim();
  if (field.kind === 'standard') {
    const problem = standardValueProblem(field.name, value, statuses, 'value');
    if (problem) throw new ValidationError(`${problem} (fieldName ${field.name})`);
  } else if (value.length > MAX_PROPERTY_VALUE_LENGTH) {
    throw new ValidationError(`value must be at most ${MAX_PROPERTY_VALUE_LENGTH} characters`);
  }
  return { field, value, skipAutomationTrigger: skip === true };
}

/**
 * The problem with writing `value` (trimmed; empty clears) to a standard field, if any. Clearing
 * is allowed except for status, which always holds a configured value.
 */
export function standardValueProblem(
  field: StandardField,
  value: string,
  statuses: readonly string[],
  label: string,
): string | undefined {
  return value || field === 'status' ? checkStandardValue(field, value, statuses, label) : undefined;
}

/**
 * What a contact must still be after a change of some of its fields (null: cleared) and
 * properties (null: removed): reachable (an email or a phone), and within MAX_PROPERTIES.
 */
export function contactRuleProblems(
  contact: Pick<Contact, 'email' | 'phone' | 'properties'>,
  fields: Partial<Record<StandardField, string | null>>,
  properties: Record<string, PropertyValue | null> = {},
): string[] {
  const problems: string[] = [];
  const email = 'email' in fields ? fields.email : contact.email;
  const phone = 'phone' in fields ? fields.phone : contact.phone;
  if (!email && !phone) {
    const cleared = !fields.email && 'email' in fields ? 'email' : 'phone';
    problems.push(`${cleared} cannot be cleared: a contact needs an email or a phone`);
  }
  const held = new Set(Object.keys(contact.properties ?? {}));
  for (const [name, value] of Object.entries(properties)) {
    if (value === null) held.delete(name);
    else held.add(name);
  }
  const added = Object.keys(properties).some(
    (name) =>
      properties[name] !== null && !Object.prototype.hasOwnProperty.call(contact.properties ?? {}, name),
  );
  if (added && held.size > MAX_PROPERTIES) {
    problems.push(`a contact holds at most ${MAX_PROPERTIES} custom properties`);
  }
  return problems;
}

/** Where the contact of a change was read: locked in the caller's transaction, or unlocked at a version. */
export type ChangeTarget =
  | { locked: true }
  | {
      locked: false;
      /** The row's `xmin` when it was read: nothing is written if the row changed since. */
      version: string;
      /** An SQL condition on the contact's funnel id; nothing is written unless it holds. */
      condition?: (funnelIdSql: string) => string;
    };

/**
 * Writes the change to the contact, keeps it as a field-value record and stamps
 * meta.ps_user_edited_at, in one statement. jsonb members are merged in SQL so concurrent writers
 * of other members are never overwritten. The rules are checked against `contact` as read: either
 * locked in the caller's transaction, or read unlocked, when the statement writes only if the row
 * is still at the version read (and `condition` holds), and answers undefined otherwise, with
 * nothing written: one statement, no transaction, the same outcome as the locked write.
 */
export async function applyValueChange(
  manager: EntityManager,
  contact: Contact,
  change: ValueChange,
  target: ChangeTarget = { locked: true },
): Promise<AppliedChange | undefined> {
  const { field, value } = change;
  let previousValue: PropertyValue;
  let newValue: PropertyValue;
  let set: string;

  if (field.kind === 'standard') {
    previousValue = contact[field.name];
    newValue = value || null;
    const [problem] = contactRuleProblems(contact, { [field.name]: newValue });
    if (problem) throw new ValidationError(problem);
    // The column of a standard field (a fixed list), never of user input.
    set = `${manager.connection.getMetadata(Contact).findColumnWithPropertyName(field.name)!.databaseName} = $6`;
  } else {
    const properties = contact.properties ?? {};
    const exists = Object.prototype.hasOwnProperty.call(properties, field.name);
    newValue = change.propertyValue ?? value;
    const [problem] = contactRuleProblems(contact, {}, { [field.name]: newValue });
    if (problem) throw new ValidationError(problem);
    previousValue = exists ? properties[field.name] : null;
    set = 'properties = properties || $6::jsonb';
  }

  const record = { id: '', contactId: contact.id, fieldName: field.name, value, createdAt: new Date() };
  const values: unknown[] = [
    contact.id,
    field.name,
    value,
    record.createdAt,
    JSON.stringify({ ps_user_edited_at: record.createdAt.toISOString() }),
    field.kind === 'standard' ? newValue : JSON.stringify({ [field.name]: newValue }),
    contact.funnelId,
  ];
  let guard = '';
  if (!target.locked) {
    guard = ` AND c.xmin = $${values.push(target.version)}::xid`;
    if (target.condition) guard += ` AND ${target.condition('c.funnel_id')}`;
  }
  const rows: { id: string }[] = await manager.query(
    `WITH written AS (
       UPDATE contacts c SET ${set}, meta = meta || $5::jsonb
       WHERE c.id = $1 AND c.funnel_id = $7${guard} RETURNING c.id),
     record AS (
       INSERT INTO contact_field_values (funnel_id, contact_id, field_name, value, created_at)
       SELECT $7, id, $2, $3, $4 FROM written RETURNING id)
     SELECT id FROM record`,
    values,
  );
  if (!rows.length) {
    if (target.locked) throw new Error(`the locked contact ${contact.id} was not written`);
    return undefined;
  }
  record.id = rows[0].id;
  return {
    record,
    previousValue: previousValue ?? null,
    value: newValue,
    changed: previousValue !== newValue,
  };
}
