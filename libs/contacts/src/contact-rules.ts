import { isEmail, isURL } from 'class-validator';
import { ValidationError } from '@app/core';
import {
  MAX_CUSTOM_PROPERTY_NAME_LENGTH,
  MAX_LENGTH,
  STANDARD_FIELDS,
  type StandardField,
} from './contact-fields';

export {
  MAX_CUSTOM_PROPERTY_NAME_LENGTH,
  MAX_LENGTH,
  STANDARD_FIELDS,
  type AddressField,
  type StandardField,
} from './contact-fields';

/** Legacy names accepted by PUT .../values. */
export const FIELD_ALIASES: Record<string, StandardField> = { zip: 'postalCode' };

/** Names PUT .../values refuses (product decisions §7), compared case-insensitively; `ps_*` too. */
export const RESERVED_FIELDS = [
  'id',
  'meta',
  'utmParams',
  'properties',
  'messages',
  'address',
  'name',
  'fullAddress',
  'timezone',
  'createdAt',
  'updatedAt',
  '__proto__',
] as const;
/** Service-managed names (`ps_source`, `ps_converted_at`, ...): reserved whatever follows. */
export const RESERVED_FIELD_PREFIX = 'ps_';

export const CUSTOM_PROPERTY_NAME = new RegExp(`^[A-Za-z0-9_.-]{1,${MAX_CUSTOM_PROPERTY_NAME_LENGTH}}$`);
export const MAX_PROPERTY_VALUE_LENGTH = 2000;
export const MAX_PROPERTIES = 100;

const PHONE_SEPARATORS = /[\s().\/-]/g;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const STANDARD_BY_LOWER_NAME = new Map<string, StandardField>([
  ...STANDARD_FIELDS.map((f) => [f.toLowerCase(), f] as const),
  ...Object.entries(FIELD_ALIASES).map(([alias, f]) => [alias.toLowerCase(), f] as const),
]);
const RESERVED_LOWER = new Set<string>(RESERVED_FIELDS.map((f) => f.toLowerCase()));

export type ResolvedField = { kind: 'standard'; name: StandardField } | { kind: 'property'; name: string };

/** Whether PUT .../values refuses a name as a reserved system field, whatever its case. */
export function isReservedFieldName(fieldName: string): boolean {
  const lower = fieldName.toLowerCase();
  return lower.startsWith(RESERVED_FIELD_PREFIX) || RESERVED_LOWER.has(lower);
}

/**
 * Maps a PUT .../values fieldName to a column or a custom property; reserved names and invalid
 * property names are refused. Standard names match whatever their case, so `Email` cannot become
 * a custom property that shadows `email`.
 */
export function resolveFieldName(fieldName: string): ResolvedField {
  if (isReservedFieldName(fieldName)) {
    throw new ValidationError(`fieldName ${fieldName} is a reserved system field and cannot be written`);
  }
  const standard = STANDARD_BY_LOWER_NAME.get(fieldName.toLowerCase());
  if (standard) return { kind: 'standard', name: standard };
  if (!CUSTOM_PROPERTY_NAME.test(fieldName)) {
    throw new ValidationError(
      `fieldName must be a standard field or a custom property name of 1 to ${MAX_CUSTOM_PROPERTY_NAME_LENGTH} letters, digits, _, - or .`,
    );
  }
  return { kind: 'property', name: fieldName };
}

/** The problem with a (trimmed, non-empty) value for a standard field, if any. */
export function checkStandardValue(
  field: StandardField,
  value: string,
  statuses: readonly string[],
  label: string = field,
): string | undefined {
  if (value.length > MAX_LENGTH[field]) {
    return `${label} must be at most ${MAX_LENGTH[field]} characters`;
  }
  switch (field) {
    case 'email':
      return isEmail(value) ? undefined : `${label} must be a valid email address`;
    case 'phone':
      return isPhone(value)
        ? undefined
        : `${label} must be a phone number: 3 to 20 digits, optionally a leading + and spaces, dashes, dots, slashes or parentheses (E.164 such as +4915112345678 preferred)`;
    case 'status':
      return statuses.includes(value)
        ? undefined
        : `${label} must be one of the funnel's statuses: ${statuses.join(', ')}`;
    case 'website':
      return isURL(value, { protocols: ['http', 'https'], require_protocol: false, require_tld: true })
        ? undefined
        : `${label} must be a URL such as https://example.com`;
    case 'birthday':
      return isIsoDate(value) ? undefined : `${label} must be a date in the form YYYY-MM-DD`;
    default:
      return undefined;
  }
}

function isPhone(value: string): boolean {
  return /^\+?\d{3,20}$/.test(value.replace(PHONE_SEPARATORS, ''));
}

export function isIsoDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
