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
import { ContactFieldValue } from './entities/contact-field-value.entity';

export interface ValueChange {
  field: ResolvedField;
  /** Trimmed; empty clears a standard field. */
  value: string;
  skipAutomationTrigger: boolean;
}

export interface AppliedChange {
  record: ContactFieldValue;
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

/**
 * Writes the change to the locked contact, keeps it as a field-value record and stamps
 * meta.ps_user_edited_at. jsonb members are merged in SQL so concurrent writers of other members
 * are never overwritten.
 */
export async function applyValueChange(
  manager: EntityManager,
  contact: Contact,
  change: ValueChange,
): Promise<AppliedChange> {
  const { field, value } = change;
  let previousValue: PropertyValue;
  let newValue: PropertyValue;
  const columns: Record<string, unknown> = {};
  const parameters: Record<string, string> = {};

  if (field.kind === 'standard') {
    previousValue = contact[field.name];
    newValue = value || null;
    const other = field.name === 'email' ? contact.phone : field.name === 'phone' ? contact.email : 'n/a';
    if (!newValue && !other) {
      throw new ValidationError(`${field.name} cannot be cleared: a contact needs an email or a phone`);
    }
    columns[field.name] = newValue;
  } else {
    const properties = contact.properties ?? {};
    const exists = Object.prototype.hasOwnProperty.call(properties, field.name);
    if (!exists && Object.keys(properties).length >= MAX_PROPERTIES) {
      throw new ValidationError(`a contact holds at most ${MAX_PROPERTIES} custom properties`);
    }
    previousValue = exists ? properties[field.name] : null;
    newValue = value;
    columns.properties = () => 'properties || CAST(:properties AS jsonb)';
    parameters.properties = JSON.stringify({ [field.name]: value });
  }

  const record = await manager.save(
    manager.create(ContactFieldValue, { contactId: contact.id, fieldName: field.name, value }),
  );
  columns.meta = () => 'meta || CAST(:meta AS jsonb)';
  parameters.meta = JSON.stringify({ ps_user_edited_at: record.createdAt.toISOString() });
  await manager
    .createQueryBuilder()
    .update(Contact)
    .set(columns as never)
    .where('id = :id', { id: contact.id })
    .setParameters(parameters)
    .execute();
  return {
    record,
    previousValue: previousValue ?? null,
    value: newValue,
    changed: previousValue !== newValue,
  };
}
