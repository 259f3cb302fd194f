import type { NormalisedFilters } from './contacts-list.query';
import { SEARCH_FIELDS, SearchField } from './contacts-search.fields';
import type { FilterGroups, SearchFilter, SearchValue } from './contacts-search.query';

/** The phone filter's expression, exactly as idx_contacts_filter_phone indexes it. */
export const PHONE_DIGITS_SQL = "regexp_replace(phone, '\\D', '', 'g')";

export type Placeholder = (value: unknown) => string;

/** What a page or a count filters on: the list's filters, or search filter groups. */
export type ContactsWhere = NormalisedFilters | FilterGroups;

const field = (name: string) => SEARCH_FIELDS.get(name)!;

/** The list's filters are equality and range filters of one search group, in the list's order. */
export function listFilterGroups(filters: NormalisedFilters): FilterGroups {
  const group: SearchFilter[] = [];
  const add = (name: string, operator: SearchFilter['operator'], value: SearchValue | undefined) => {
    if (value !== undefined) group.push({ field: field(name), operator, value });
  };
  add('email', 'eq', filters.emailLower);
  add('phone', 'eq', filters.phoneDigits);
  add('status', 'eq', filters.status);
  add('updatedAt', 'gt', filters.updatedAfter);
  add('createdAt', 'gt', filters.createdAfter);
  return group.length ? [group] : [];
}

/**
 * The conditions a contacts row (unaliased `contacts`) must meet, to be AND-ed with the funnel's:
 * one group's filters each, or the groups OR-ed as one condition. The one builder of both the
 * list's filters and search. `funnel` is the funnel's placeholder, which a typed property's range
 * reads its values by.
 */
export function whereConditions(where: ContactsWhere, p: Placeholder, funnel?: string): string[] {
  const groups = Array.isArray(where) ? where : listFilterGroups(where);
  const compiled = groups.map((group) => group.map((filter) => filterSql(filter, p, funnel)));
  if (compiled.length <= 1) return compiled[0] ?? [];
  return [`((${compiled.map((c) => c.join(' AND ')).join(') OR (')}))`];
}

const CASTS = {
  text: 'text',
  uuid: 'uuid',
  datetime: 'timestamptz',
  // A date property holds YYYY-MM-DD text, which sorts as the dates do.
  date: 'text',
  boolean: 'boolean',
  number: 'numeric',
};

/** `%` and `_` match themselves in a contains or starts_with value. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Each filter as one condition, written so the indexes serve it: email by
 * idx_contacts_search_email_prefix (equality and starts_with), phone by
 * its digits index, properties' eq / in / exists by the GIN index on properties.
 */
function filterSql(filter: SearchFilter, p: Placeholder, funnel: string | undefined): string {
  const { field, operator, value } = filter;
  if (field.source === 'property') {
    const direct = propertySql(field, filter, p, funnel);
    if (direct) return direct;
  }
  const e = expression(field);
  const cast = CASTS[field.type];
  // A JSON boolean is compared as JSON, so text 'true' does not match true.
  const v = (x: unknown) => (field.type === 'boolean' ? `to_jsonb(${p(x)}::boolean)` : p(x));
  switch (operator) {
    case 'eq':
      return `${e} = ${v(value)}`;
    case 'neq':
      // Contacts without the value are not equal to it.
      return `${e} IS DISTINCT FROM ${v(value)}`;
    case 'lt':
      return `${e} < ${p(value)}`;
    case 'lte':
      return `${e} <= ${p(value)}`;
    case 'gt':
      return `${e} > ${p(value)}`;
    case 'gte':
      return `${e} >= ${p(value)}`;
    case 'in':
      return `${e} = ANY(${p(value)}::${cast}[])`;
    case 'not_in':
      return `(${e} = ANY(${p(value)}::${cast}[])) IS NOT TRUE`;
    case 'contains':
      return `${e} ILIKE ${p(`%${escapeLike(value as string)}%`)}`;
    case 'starts_with':
      return `${e} LIKE ${p(`${escapeLike(value as string)}%`)}`;
    case 'exists':
      return `${presence(field)} IS NOT NULL`;
    case 'not_exists':
      return `${presence(field)} IS NULL`;
  }
}

/** The field's value as SQL compares it. */
function expression(field: SearchField): string {
  switch (field.source) {
    case 'column':
      if (field.compare === 'lower') return `lower(${field.sql})`;
      if (field.compare === 'digits') return PHONE_DIGITS_SQL;
      return field.sql;
    case 'json':
      return field.type === 'boolean'
        ? `${field.column}->${literal(field.key)}`
        : `${field.column}->>${literal(field.key)}`;
    case 'property': {
      // Number and date properties never get here (propertySql compares them).
      if (field.type === 'boolean') return `properties->${literal(field.key)}`;
      return `properties->>${literal(field.key)}`;
    }
  }
}

/** Null exactly when the field has no value (a JSON null counts as none, except for a property). */
function presence(field: SearchField): string {
  if (field.source === 'json') return `${field.column}->>${literal(field.key)}`;
  return expression(field);
}

/** The range operators, as SQL writes them. */
const RANGES: Partial<Record<SearchFilter['operator'], string>> = { lt: '<', lte: '<=', gt: '>', gte: '>=' };

/** The column of contact_property_values holding a typed property's value, by its search type. */
const TYPED_VALUE_COLUMNS: Partial<Record<SearchField['type'], string>> = {
  number: 'number_value',
  date: 'date_value',
};

/** A number or date property's value as its copy holds it (null when it has none), from properties. */
const TYPED_VALUE_SQL: Partial<Record<SearchField['type'], (key: string) => string>> = {
  number: (key) => `contact_property_number('number', properties->${literal(key)})`,
  date: (key) => `contact_property_date('date', properties->${literal(key)})`,
};

/**
 * A custom property's equality, membership and presence as containment and key tests, which the
 * GIN index on properties serves; a range of a number or date property as a range of
 * contact_property_values' index (the funnel's, property's and generation's values in order) once
 * its copy is complete, and over the contacts' properties (the same conversion) until then; its
 * other operators compare the extracted value.
 */
function propertySql(
  field: SearchField & { source: 'property' },
  filter: SearchFilter,
  p: Placeholder,
  funnel: string | undefined,
) {
  const pair = (value: unknown) => JSON.stringify({ [field.key]: value });
  const { operator, value } = filter;
  const range = RANGES[operator];
  const typed = TYPED_VALUE_COLUMNS[field.type];
  if (range && typed && !field.copy) return `${TYPED_VALUE_SQL[field.type]!(field.key)} ${range} ${p(value)}`;
  if (range && typed) {
    const match =
      `v.property_name = ${literal(field.key)} AND v.generation = ${p(field.copy)}::uuid ` +
      `AND v.${typed} ${range} ${p(value)}`;
    // The matching ids as one array, read once: the contacts are then fetched in one scan of the
    // primary key for the whole array, not probed one by one along the sort index.
    if (funnel)
      return `id = ANY(ARRAY(SELECT v.contact_id FROM contact_property_values v WHERE v.funnel_id = ${funnel} AND ${match}))`;
    // Without the funnel's placeholder: a semi-join on the outer row's funnel and id.
    return `(funnel_id, id) IN (SELECT v.funnel_id, v.contact_id FROM contact_property_values v WHERE ${match})`;
  }
  switch (operator) {
    case 'eq':
      return `properties @> ${p(pair(value))}::jsonb`;
    case 'neq':
      return `NOT (properties @> ${p(pair(value))}::jsonb)`;
    case 'in':
      return `properties @> ANY(${p((value as SearchValue[]).map(pair))}::jsonb[])`;
    case 'not_in':
      return `NOT (properties @> ANY(${p((value as SearchValue[]).map(pair))}::jsonb[]))`;
    // A property set to null still exists (as the Contact shows it).
    case 'exists':
      return `properties ? ${literal(field.key)}`;
    case 'not_exists':
      return `NOT (properties ? ${literal(field.key)})`;
    default:
      return undefined;
  }
}
