import { ADDRESS_FIELDS, CONTACT_TEXT_FIELDS } from './contact.presenter';
import { CUSTOM_PROPERTY_NAME } from './contact-rules';

/** What a searchable field holds, which decides the operators it takes and the type of its value. */
export type SearchValueType = 'text' | 'uuid' | 'datetime' | 'date' | 'boolean' | 'number';

export const SEARCH_OPERATORS = [
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'not_in',
  'contains',
  'starts_with',
  'exists',
  'not_exists',
] as const;
export type SearchOperator = (typeof SEARCH_OPERATORS)[number];

const COMPARISONS: SearchOperator[] = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in'];
const PRESENCE: SearchOperator[] = ['exists', 'not_exists'];

/** The operators each type of field takes. */
export const OPERATORS_BY_TYPE: Record<SearchValueType, readonly SearchOperator[]> = {
  text: SEARCH_OPERATORS,
  uuid: ['eq', 'neq', 'in', 'not_in'],
  datetime: [...COMPARISONS, ...PRESENCE],
  number: [...COMPARISONS, ...PRESENCE],
  date: [...COMPARISONS, ...PRESENCE],
  boolean: ['eq', 'neq', ...PRESENCE],
};

/** meta members holding booleans; every other ps_* member holds text (date-times as ISO text). */
export const META_BOOLEAN_KEYS = [
  'ps_email_verified',
  'ps_phone_verified',
  'ps_embed',
  'ps_calA_booked',
  'ps_calB_booked',
  'ps_calC_booked',
  'ps_calD_booked',
  'ps_unsubscribed',
] as const;
export const META_TEXT_KEYS = [
  'ps_timezone',
  'ps_first_seen_at',
  'ps_last_seen_at',
  'ps_source',
  'ps_start_slug',
  'ps_end_slug',
  'ps_start_page',
  'ps_result_page',
  'ps_user_edited_at',
  'ps_completed_at',
  'ps_email_verified_at',
  'ps_phone_verified_at',
  'ps_unsubscribed_at',
] as const;
export const UTM_KEYS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;

/**
 * Where a field's value lives: a column (`sql` is its expression on an unaliased `contacts` row),
 * a member of a jsonb column, or a custom property (jsonb `properties`, typed by its definition).
 */
export type SearchField =
  | { name: string; type: SearchValueType; source: 'column'; sql: string; compare?: 'lower' | 'digits' }
  | { name: string; type: SearchValueType; source: 'json'; column: 'meta' | 'utm_params'; key: string }
  | {
      name: string;
      type: SearchValueType;
      source: 'property';
      key: string;
      /** The generation of its complete copy in contact_property_values, which ranges then read. */
      copy?: string;
    };

const column = (name: string, sql: string, type: SearchValueType = 'text'): SearchField => ({
  name,
  type,
  source: 'column',
  sql,
});
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Every field of a Contact that holds one value, by the name search uses for it. */
export const SEARCH_FIELDS: ReadonlyMap<string, SearchField> = new Map(
  [
    column('id', 'id', 'uuid'),
    column('status', 'status'),
    // Compared as the list's filters compare them: email whatever the case, phone by its digits.
    { ...column('email', 'email'), compare: 'lower' as const },
    { ...column('phone', 'phone'), compare: 'digits' as const },
    ...CONTACT_TEXT_FIELDS.filter((f) => f !== 'email' && f !== 'phone').map((f) => column(f, snake(f))),
    ...ADDRESS_FIELDS.map((f) => column(`address.${f}`, snake(f))),
    column('createdAt', 'created_at', 'datetime'),
    column('updatedAt', 'updated_at', 'datetime'),
    column('meta.ps_converted_at', 'converted_at', 'datetime'),
    ...META_BOOLEAN_KEYS.map((key): SearchField => ({
      name: `meta.${key}`,
      type: 'boolean',
      source: 'json',
      column: 'meta',
      key,
    })),
    ...META_TEXT_KEYS.map((key): SearchField => ({
      name: `meta.${key}`,
      type: 'text',
      source: 'json',
      column: 'meta',
      key,
    })),
    ...UTM_KEYS.map((key): SearchField => ({
      name: `utmParams.${key}`,
      type: 'text',
      source: 'json',
      column: 'utm_params',
      key,
    })),
  ].map((field) => [field.name, field]),
);

export const PROPERTY_FIELD_PREFIX = 'properties.';

/** The type a custom property is compared by; without a definition its values are text. */
export type PropertyTypes = ReadonlyMap<string, SearchValueType>;

/** The number and date properties whose copy in contact_property_values is complete: its generation. */
export type PropertyCopies = ReadonlyMap<string, string>;

/**
 * The field a search names, or undefined when there is none: a Contact field or `properties.<name>`
 * (typed by `propertyTypes`, its ranges read from its copy in `copies` when there is one).
 */
export function searchField(
  name: string,
  propertyTypes: PropertyTypes = new Map(),
  copies: PropertyCopies = new Map(),
): SearchField | undefined {
  const known = SEARCH_FIELDS.get(name);
  if (known) return known;
  if (!name.startsWith(PROPERTY_FIELD_PREFIX)) return undefined;
  const key = name.slice(PROPERTY_FIELD_PREFIX.length);
  if (!CUSTOM_PROPERTY_NAME.test(key)) return undefined;
  const copy = copies.get(key);
  return { name, type: propertyTypes.get(key) ?? 'text', source: 'property', key, ...(copy ? { copy } : {}) };
}
