import { ValidationError } from '@app/core';
import type { PropertyDefinitions } from './contact-properties.repository';
import { propertyNameProblem } from './contact-property.input';
import { AddressField, MAX_PROPERTIES, StandardField } from './contact-rules';
import { contactRuleProblems, standardValueProblem } from './contact-value-change';
import { ADDRESS_FIELDS } from './contact.presenter';
import type { Contact, PropertyValue } from './entities/contact.entity';
import { checkPropertyValue } from './property-types';

/** The body of PATCH …/contacts/{contactId} (REST) and the arguments of the MCP update_contact tool. */
export interface PatchContactInput {
  email?: string | null;
  phone?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  status?: string;
  website?: string | null;
  birthday?: string | null;
  address?: Partial<Record<AddressField, string | null>>;
  properties?: Record<string, string | number | boolean | null>;
  skipAutomationTrigger?: boolean;
}

/** A checked change of some fields of a contact. */
export interface ContactPatch {
  /** Trimmed values; null clears the field. */
  fields: Partial<Record<StandardField, string | null>>;
  /** Values as their definitions store them; null removes the property. */
  properties: Record<string, PropertyValue | null>;
  skipAutomationTrigger: boolean;
}

/** One changed field: what automations are told and the field-value history keeps. */
export interface FieldChange {
  fieldName: string;
  previousValue: PropertyValue;
  value: PropertyValue;
}

export const PATCH_TOP_LEVEL = [
  'email',
  'phone',
  'firstName',
  'lastName',
  'status',
  'website',
  'birthday',
] as const;
const ALLOWED = new Set<string>([...PATCH_TOP_LEVEL, 'address', 'properties', 'skipAutomationTrigger']);
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a change of many fields, each by the rule PUT …/values applies to it (standard fields by
 * checkStandardValue, properties by their definitions), and reports every problem at once.
 * `allowed` narrows the members accepted (a batch item's `properties` are checked here too).
 */
export function validatePatchInput(
  input: unknown,
  statuses: readonly string[],
  definitions: PropertyDefinitions,
): ContactPatch {
  if (!isPlainObject(input)) throw new ValidationError('the request body must be a JSON object');
  const problems: string[] = [];
  for (const key of Object.keys(input)) {
    if (!ALLOWED.has(key)) problems.push(`${key} is not a recognised field`);
  }
  const fields: ContactPatch['fields'] = {};
  const take = (field: StandardField, raw: unknown, label: string) => {
    if (raw === undefined) return;
    if (raw !== null && typeof raw !== 'string') return void problems.push(`${label} must be a string`);
    const value = (raw ?? '').trim();
    const problem = standardValueProblem(field, value, statuses, label);
    if (problem) problems.push(problem);
    else fields[field] = value || null;
  };
  for (const field of PATCH_TOP_LEVEL) take(field, input[field], field);
  const address = input.address;
  if (address !== undefined && address !== null && !isPlainObject(address)) {
    problems.push('address must be an object');
  } else if (isPlainObject(address)) {
    for (const key of Object.keys(address)) {
      if (!(ADDRESS_FIELDS as readonly string[]).includes(key))
        problems.push(`address.${key} is not a recognised field`);
    }
    for (const field of ADDRESS_FIELDS) take(field, address[field], `address.${field}`);
  }

  const properties: ContactPatch['properties'] = {};
  const given = input.properties;
  if (given !== undefined && given !== null && !isPlainObject(given)) {
    problems.push('properties must be an object');
  } else if (isPlainObject(given)) {
    const names = Object.keys(given);
    if (names.length > MAX_PROPERTIES) problems.push(`properties may hold at most ${MAX_PROPERTIES} members`);
    for (const name of names.slice(0, MAX_PROPERTIES)) {
      const nameProblem = propertyNameProblem(name);
      if (nameProblem) {
        problems.push(`properties.${nameProblem}`);
        continue;
      }
      if (given[name] === null) {
        properties[name] = null;
        continue;
      }
      const checked = checkPropertyValue(given[name], definitions.get(name), `properties.${name}`);
      if (checked.problem !== undefined) problems.push(checked.problem);
      else properties[name] = checked.value;
    }
  }
  const skip = input.skipAutomationTrigger;
  if (skip !== undefined && skip !== null && typeof skip !== 'boolean') {
    problems.push('skipAutomationTrigger must be a boolean');
  }
  if (problems.length) throw new ValidationError(problems[0], problems);
  return { fields, properties, skipAutomationTrigger: skip === true };
}

/**
 * The fields of `contact` the patch actually changes, after checking what the contact must remain
 * (contactRuleProblems): a problem is a ValidationError and nothing is to be written.
 */
export function changesOf(
  contact: Contact,
  patch: Pick<ContactPatch, 'fields' | 'properties'>,
): FieldChange[] {
  const problems = contactRuleProblems(contact, patch.fields, patch.properties);
  if (problems.length) throw new ValidationError(problems[0], problems);
  const changes: FieldChange[] = [];
  for (const [field, value] of Object.entries(patch.fields) as [StandardField, string | null][]) {
    const previousValue = contact[field] ?? null;
    if (previousValue !== value) changes.push({ fieldName: field, previousValue, value });
  }
  const held = contact.properties ?? {};
  for (const [name, value] of Object.entries(patch.properties)) {
    const previousValue = Object.prototype.hasOwnProperty.call(held, name) ? held[name] : null;
    if (previousValue !== value) changes.push({ fieldName: name, previousValue, value });
  }
  return changes;
}

/** Merges patches of one contact in order: a later one's members win. */
export function mergePatches(patches: ContactPatch[]): ContactPatch {
  return {
    fields: Object.assign({}, ...patches.map((p) => p.fields)) as ContactPatch['fields'],
    properties: Object.assign({}, ...patches.map((p) => p.properties)) as ContactPatch['properties'],
    skipAutomationTrigger: patches.every((p) => p.skipAutomationTrigger),
  };
}
