import type { EntityManager } from 'typeorm';
import { ValidationError } from '@app/core';
import type { UpdateContactValueInput } from './contact-input';
import {
  checkStandardValue,
  MAX_PROPERTIES,
  MAX_PROPERTY_VALUE_LENGTH,
  ResolvedField,
  resolveFieldName,
} from './contact-rules';
import { Contact, PropertyValue } from './entities/contact.entity';

export interface ValueChange {
  field: ResolvedField;
  /** Trimmed; empty clears a standard field. */
  value: string;
  skipAutomationTrigger: boolean;
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
    // Clearing is allowed except for status, which always holds a configured value.
    const problem =
      value || field.name === 'status' ? checkStandardValue(field.name, value, statuses, 'value') : undefined;
    if (problem) throw new ValidationError(`${problem} (fieldName ${field.name})`);
  } else if (value.length > MAX_PROPERTY_VALUE_LENGTH) {
    throw new ValidationError(`value must be at most ${MAX_PROPERTY_VALUE_LENGTH} characters`);
  }
  return { field, value, skipAutomationTrigger: skip === true };
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
    const other = field.name === 'email' ? contact.phone : field.name === 'phone' ? contact.email : 'n/a';
    if (!newValue && !other) {
      throw new ValidationError(`${field.name} cannot be cleared: a contact needs an email or a phone`);
    }
    // The column of a standard field (a fixed list), never of user input.
    set = `${manager.connection.getMetadata(Contact).findColumnWithPropertyName(field.name)!.databaseName} = $6`;
  } else {
    const properties = contact.properties ?? {};
    const exists = Object.prototype.hasOwnProperty.call(properties, field.name);
    if (!exists && Object.keys(properties).length >= MAX_PROPERTIES) {
      throw new ValidationError(`a contact holds at most ${MAX_PROPERTIES} custom properties`);
    }
    previousValue = exists ? properties[field.name] : null;
    newValue = value;
    set = 'properties = properties || $6::jsonb';
  }

  const record = { id: '', contactId: contact.id, fieldName: field.name, value, createdAt: new Date() };
  const values: unknown[] = [
    contact.id,
    field.name,
    value,
    record.createdAt,
    JSON.stringify({ ps_user_edited_at: record.createdAt.toISOString() }),
    field.kind === 'standard' ? newValue : JSON.stringify({ [field.name]: value }),
  ];
  let guard = '';
  if (!target.locked) {
    guard = ` AND c.xmin = $${values.push(target.version)}::xid`;
    if (target.condition) guard += ` AND ${target.condition('c.funnel_id')}`;
  }
  const rows: { id: string }[] = await manager.query(
    `WITH written AS (
       UPDATE contacts c SET ${set}, meta = meta || $5::jsonb WHERE c.id = $1${guard} RETURNING c.id),
     record AS (
       INSERT INTO contact_field_values (contact_id, field_name, value, created_at)
       SELECT id, $2, $3, $4 FROM written RETURNING id)
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
