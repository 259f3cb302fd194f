import { isUuid, parseIso8601, ValidationError } from '@app/core';
import { isIsoDate, MAX_PROPERTY_VALUE_LENGTH } from './contact-rules';
import {
  DEFAULT_LIMIT,
  DEFAULT_SORT_FIELD,
  DEFAULT_SORT_ORDER,
  FILTER_RULES,
  MAX_CURSOR_LENGTH,
  MAX_LIMIT,
  PAGING_RULES,
  phoneDigits,
  SORT_FIELDS,
  SORT_ORDERS,
  type SortField,
  type SortOrder,
} from './contacts-list.query';
import {
  OPERATORS_BY_TYPE,
  PROPERTY_FIELD_PREFIX,
  PropertyCopies,
  PropertyTypes,
  SEARCH_OPERATORS,
  SearchField,
  searchField,
  SearchOperator,
  SearchValueType,
} from './contacts-search.fields';

export const MAX_FILTER_GROUPS = 5;
export const MAX_FILTERS_PER_GROUP = 10;
export const MAX_IN_VALUES = 100;

/** The body of a search as sent (REST and MCP); every member is checked by validateSearch. */
export interface SearchContactsInput {
  filterGroups?: { filters: { field: string; operator: string; value?: unknown }[] }[];
  sortField?: SortField;
  sortOrder?: SortOrder;
  limit?: number;
  cursor?: string;
}

export type SearchValue = string | number | boolean | Date;

/** One checked filter: a known field, an operator it takes, and its value as the SQL compares it. */
export interface SearchFilter {
  field: SearchField;
  operator: SearchOperator;
  /** Absent for exists / not_exists; an array for in / not_in. */
  value?: SearchValue | SearchValue[];
}

/** Groups OR-ed together, each a list of filters AND-ed together; no group means every contact. */
export type FilterGroups = SearchFilter[][];

export interface SearchContactsQuery {
  groups: FilterGroups;
  sortField: SortField;
  sortOrder: SortOrder;
  limit: number;
  cursor?: string;
}

export const SEARCH_RULES = {
  filterGroups: `filterGroups must be an array of at most ${MAX_FILTER_GROUPS} objects {"filters": [...]}`,
  filters: `filters must be an array of 1 to ${MAX_FILTERS_PER_GROUP} objects {"field", "operator", "value"}`,
  field:
    'is not a searchable field: use a Contact field (email, status, address.city, ...), createdAt, ' +
    'updatedAt, meta.ps_*, utmParams.utm_* or properties.<name>',
  operator: `is not an operator: use one of ${SEARCH_OPERATORS.join(', ')}`,
};

const VALUE_RULES: Record<SearchValueType, string> = {
  text: `a non-empty string of at most ${MAX_PROPERTY_VALUE_LENGTH} characters`,
  uuid: 'a UUID',
  datetime: 'an ISO 8601 date-time with a zone, e.g. 2026-01-31T12:00:00Z',
  date: 'a date in the form YYYY-MM-DD',
  boolean: 'true or false',
  number: 'a finite number',
};

const FILTER_MEMBERS = new Set(['field', 'operator', 'value']);
const BODY_MEMBERS = new Set(['filterGroups', 'sortField', 'sortOrder', 'limit', 'cursor']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The names of the custom properties a search filters on, so their types can be looked up first. */
export function searchedPropertyNames(input: SearchContactsInput): string[] {
  const names = new Set<string>();
  const groups = Array.isArray(input?.filterGroups) ? input.filterGroups : [];
  for (const group of groups) {
    const filters: unknown[] = isObject(group) && Array.isArray(group.filters) ? group.filters : [];
    for (const filter of filters) {
      if (
        isObject(filter) &&
        typeof filter.field === 'string' &&
        filter.field.startsWith(PROPERTY_FIELD_PREFIX)
      )
        names.add(filter.field.slice(PROPERTY_FIELD_PREFIX.length));
    }
  }
  return [...names];
}

/**
 * The same rules for every door (REST body, MCP arguments): a 400 naming the first field, operator
 * or value that is wrong, with every problem found in `details`.
 */
export function validateSearch(
  input: SearchContactsInput,
  propertyTypes?: PropertyTypes,
  copies?: PropertyCopies,
): SearchContactsQuery {
  const problems: string[] = [];
  if (!isObject(input as unknown)) throw new ValidationError('the request body must be a JSON object');
  for (const key of Object.keys(input))
    if (!BODY_MEMBERS.has(key)) problems.push(`${key} is not a recognised field`);

  const sortField = input.sortField ?? DEFAULT_SORT_FIELD;
  const sortOrder = input.sortOrder ?? DEFAULT_SORT_ORDER;
  const limit = input.limit ?? DEFAULT_LIMIT;
  if (!SORT_FIELDS.includes(sortField)) problems.push(PAGING_RULES.sortField);
  if (!SORT_ORDERS.includes(sortOrder)) problems.push(PAGING_RULES.sortOrder);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) problems.push(PAGING_RULES.limit);
  const cursor = input.cursor;
  if (cursor !== undefined && (typeof cursor !== 'string' || !cursor || cursor.length > MAX_CURSOR_LENGTH))
    problems.push(FILTER_RULES.cursor);

  const groups: FilterGroups = [];
  const rawGroups = input.filterGroups ?? [];
  if (!Array.isArray(rawGroups) || rawGroups.length > MAX_FILTER_GROUPS)
    problems.push(SEARCH_RULES.filterGroups);
  else {
    rawGroups.forEach((group: unknown, g) => {
      const at = `filterGroups[${g}]`;
      if (!isObject(group) || Object.keys(group).some((k) => k !== 'filters')) {
        problems.push(`${at}: ${SEARCH_RULES.filterGroups}`);
        return;
      }
      const filters = group.filters;
      if (!Array.isArray(filters) || filters.length < 1 || filters.length > MAX_FILTERS_PER_GROUP) {
        problems.push(`${at}.filters: ${SEARCH_RULES.filters}`);
        return;
      }
      groups.push(
        filters.flatMap((filter: unknown, f) => {
          const checked = checkFilter(filter, `${at}.filters[${f}]`, propertyTypes, copies, problems);
          return checked ? [checked] : [];
        }),
      );
    });
  }
  if (problems.length) throw new ValidationError(problems[0], problems);
  return { groups, sortField, sortOrder, limit, cursor };
}

function checkFilter(
  filter: unknown,
  at: string,
  propertyTypes: PropertyTypes | undefined,
  copies: PropertyCopies | undefined,
  problems: string[],
): SearchFilter | undefined {
  if (!isObject(filter)) {
    problems.push(`${at}: ${SEARCH_RULES.filters}`);
    return undefined;
  }
  const unknown = Object.keys(filter).find((key) => !FILTER_MEMBERS.has(key));
  if (unknown) {
    problems.push(`${at}.${unknown} is not a recognised field`);
    return undefined;
  }
  const name = filter.field;
  const field = typeof name === 'string' ? searchField(name, propertyTypes, copies) : undefined;
  if (!field) {
    problems.push(`${at}.field: ${JSON.stringify(name ?? null)} ${SEARCH_RULES.field}`);
    return undefined;
  }
  const operator = filter.operator as SearchOperator;
  if (typeof operator !== 'string' || !SEARCH_OPERATORS.includes(operator)) {
    problems.push(`${at}.operator: ${JSON.stringify(operator ?? null)} ${SEARCH_RULES.operator}`);
    return undefined;
  }
  const allowed = OPERATORS_BY_TYPE[field.type];
  if (!allowed.includes(operator)) {
    problems.push(
      `${at}.operator: ${operator} does not apply to ${field.name} (${field.type}); use one of ${allowed.join(', ')}`,
    );
    return undefined;
  }
  if (operator === 'exists' || operator === 'not_exists') {
    if (filter.value !== undefined) {
      problems.push(`${at}.value: ${operator} takes no value`);
      return undefined;
    }
    return { field, operator };
  }
  const wrong = () => {
    const rule = VALUE_RULES[field.type];
    problems.push(
      operator === 'in' || operator === 'not_in'
        ? `${at}.value: ${operator} on ${field.name} takes an array of 1 to ${MAX_IN_VALUES} values, each ${rule}`
        : `${at}.value: ${field.name} takes ${rule}`,
    );
    return undefined;
  };
  if (operator === 'in' || operator === 'not_in') {
    const values = filter.value;
    if (!Array.isArray(values) || values.length < 1 || values.length > MAX_IN_VALUES) return wrong();
    const normalised = values.map((v) => normaliseValue(field, v));
    if (normalised.some((v) => v === undefined)) return wrong();
    return { field, operator, value: normalised as SearchValue[] };
  }
  const value = normaliseValue(field, filter.value);
  return value === undefined ? wrong() : { field, operator, value };
}

/** The value as the SQL compares it (email lower-cased, phone as digits); undefined when of the wrong type. */
function normaliseValue(field: SearchField, value: unknown): SearchValue | undefined {
  switch (field.type) {
    case 'text': {
      if (typeof value !== 'string' || !value || value.length > MAX_PROPERTY_VALUE_LENGTH) return undefined;
      if (field.source === 'column' && field.compare === 'lower') return value.toLowerCase();
      if (field.source === 'column' && field.compare === 'digits') return phoneDigits(value) || undefined;
      return value;
    }
    case 'uuid':
      return isUuid(value) ? value : undefined;
    case 'datetime': {
      const millis = typeof value === 'string' ? parseIso8601(value, { zoneRequired: true }) : undefined;
      return millis === undefined ? undefined : new Date(millis);
    }
    case 'date':
      return typeof value === 'string' && isIsoDate(value) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  }
}

/** The filters in a canonical text, so a cursor can tell it belongs to the same search. */
export function canonicalGroups(groups: FilterGroups): string {
  const text = (v: SearchValue) => (v instanceof Date ? v.toISOString() : v);
  return JSON.stringify(
    groups.map((group) =>
      group.map((f) => [
        f.field.name,
        f.operator,
        Array.isArray(f.value) ? f.value.map(text) : f.value === undefined ? null : text(f.value),
      ]),
    ),
  );
}
