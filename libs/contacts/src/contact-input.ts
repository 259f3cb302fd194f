import { ValidationError } from '@app/core';
import { AddressField, checkStandardValue, StandardField } from './contact-rules';
import { ADDRESS_FIELDS } from './contact.presenter';

/** The body of POST .../contacts (REST) and the arguments of the MCP create tool. */
export interface CreateContactInput {
  email?: string | null;
  phone?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  status?: string | null;
  website?: string | null;
  birthday?: string | null;
  address?: Partial<Record<AddressField, string | null>> | null;
  skipAutomationTrigger?: boolean;
}

/** The body of PUT .../values (REST) and the arguments of the MCP update tool. */
export interface UpdateContactValueInput {
  fieldName: string;
  value: string;
  skipAutomationTrigger?: boolean;
}

export type NewContactFields = Record<Exclude<StandardField, 'status'>, string | null> & { status: string };

const TOP_LEVEL = ['email', 'phone', 'firstName', 'lastName', 'status', 'website', 'birthday'] as const;
export const READ_ONLY_MESSAGES: Record<'meta' | 'utmParams' | 'properties', string> = {
  meta: 'meta is managed by the service and cannot be set',
  utmParams: 'utmParams is read-only and cannot be set',
  properties: 'properties cannot be set here: write each one with PUT .../values',
};
const READ_ONLY: Record<string, string> = READ_ONLY_MESSAGES;
const ALLOWED = new Set<string>([...TOP_LEVEL, 'address', 'skipAutomationTrigger']);

const isAbsent = (value: unknown) => value === undefined || value === null;

/**
 * Checks a new contact against every rule and returns its normalised fields (trimmed; empty
 * strings count as absent; status defaults to the funnel's first). All problems are reported.
 */
export function validateCreateInput(
  input: unknown,
  statuses: readonly string[],
): { fields: NewContactFields; skipAutomationTrigger: boolean } {
  const problems: string[] = [];
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError('the request body must be a JSON object');
  }
  const body = input as Record<string, unknown>;
  for (const [key, value] of Object.entries(body)) {
    if (isAbsent(value)) continue;
    if (READ_ONLY[key]) problems.push(READ_ONLY[key]);
    else if (!ALLOWED.has(key)) problems.push(`${key} is not a recognised field`);
  }

  const fields = {} as NewContactFields;
  const take = (field: StandardField, raw: unknown, label: string) => {
    (fields as Record<StandardField, string | null>)[field] = null;
    if (isAbsent(raw)) return;
    if (typeof raw !== 'string') return void problems.push(`${label} must be a string`);
    const value = raw.trim();
    if (!value) return;
    const problem = field === 'status' ? undefined : checkStandardValue(field, value, statuses, label);
    if (problem) problems.push(problem);
    else fields[field] = value;
  };
  for (const field of TOP_LEVEL) take(field, body[field], field);

  const address = body.address;
  if (!isAbsent(address) && (typeof address !== 'object' || Array.isArray(address))) {
    problems.push('address must be an object');
  }
  const parts = (typeof address === 'object' && address && !Array.isArray(address) ? address : {}) as Record<
    string,
    unknown
  >;
  for (const key of Object.keys(parts)) {
    if (!(ADDRESS_FIELDS as readonly string[]).includes(key) && !isAbsent(parts[key])) {
      problems.push(`address.${key} is not a recognised field`);
    }
  }
  for (const field of ADDRESS_FIELDS) take(field, parts[field], `address.${field}`);

  completeNewContact(fields, statuses, problems);

  const skip = body.skipAutomationTrigger;
  if (!isAbsent(skip) && typeof skip !== 'boolean') problems.push('skipAutomationTrigger must be a boolean');

  if (problems.length) throw new ValidationError(problems[0], problems);
  return { fields, skipAutomationTrigger: skip === true };
}

/**
 * The rules of a new contact beyond each field's own check: reachable (an email or a phone), and
 * in one of the funnel's statuses, the first when none is given. Adds its problems to `problems`.
 */
function completeNewContact(fields: NewContactFields, statuses: readonly string[], problems: string[]): void {
  if (!fields.email && !fields.phone && !problems.some((p) => /^(email|phone) /.test(p))) {
    problems.unshift('email or phone is required');
  }
  fields.status = fields.status ?? statuses[0];
  const statusProblem = checkStandardValue('status', fields.status, statuses);
  if (statusProblem) problems.push(statusProblem);
}

/**
 * A new contact from fields each already checked by its own rule (a batch item's, checked as a
 * change): the rules of completeNewContact, as validateCreateInput applies them.
 */
export function newContactFields(
  checked: Partial<Record<StandardField, string | null>>,
  statuses: readonly string[],
): NewContactFields {
  const fields = {} as NewContactFields;
  for (const field of [...TOP_LEVEL, ...ADDRESS_FIELDS]) {
    (fields as Record<StandardField, string | null>)[field] = checked[field] || null;
  }
  const problems: string[] = [];
  completeNewContact(fields, statuses, problems);
  if (problems.length) throw new ValidationError(problems[0], problems);
  return fields;
}
