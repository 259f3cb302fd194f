import { parseIso8601, ValidationError } from '@app/core';
import { MAX_LENGTH } from './contact-rules';

export const SORT_FIELDS = ['ps_converted_at', 'email', 'firstName', 'lastName', 'updatedAt'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
/** The sort fields over a timestamp column: their cursor values are timestamps. */
export const TIMESTAMP_SORT_FIELDS: readonly SortField[] = ['ps_converted_at', 'updatedAt'];
export const SORT_ORDERS = [-1, 1] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];
export const DEFAULT_SORT_FIELD: SortField = 'ps_converted_at';
export const DEFAULT_SORT_ORDER: SortOrder = -1;
export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 50;
export const MAX_CURSOR_LENGTH = 1000;

/** The list's filters; every one is optional and they combine with AND. */
export interface ContactFilters {
  /** Exact match, case-insensitive. */
  email?: string;
  /** Only the digits are compared: `+49 151 123` finds `+49151123`. */
  phone?: string;
  /** One of the funnel's statuses. */
  status?: string;
  /** ISO 8601 date-time with a zone; contacts changed strictly after it. */
  updatedAfter?: string;
  /** ISO 8601 date-time with a zone; contacts created strictly after it. */
  createdAfter?: string;
}

export const FILTER_NAMES = ['email', 'phone', 'status', 'updatedAfter', 'createdAfter'] as const;

export interface ListContactsQuery extends ContactFilters {
  /** 0-based. */
  page: number;
  /** 1 to MAX_LIMIT. */
  limit: number;
  sortField: SortField;
  /** -1 descending, 1 ascending. */
  sortOrder: SortOrder;
  /** `meta.nextCursor` of the previous page of the same query. */
  cursor?: string;
}

/** The filters as the SQL compares them. */
export interface NormalisedFilters {
  emailLower?: string;
  phoneDigits?: string;
  status?: string;
  updatedAfter?: Date;
  createdAfter?: Date;
}

/** The messages of the paging rules, the same from the REST query DTO and from the service. */
export const PAGING_RULES = {
  page: 'page must be an integer of at least 0',
  limit: `limit must be an integer from 1 to ${MAX_LIMIT}`,
  sortField: `sortField must be one of ${SORT_FIELDS.join(', ')}`,
  sortOrder: `sortOrder must be ${SORT_ORDERS.join(' or ')}`,
  pageWithCursor: 'page cannot be combined with cursor',
};

export const FILTER_RULES = {
  email: `email must be a non-empty string of at most ${MAX_LENGTH.email} characters`,
  phone: 'phone must contain at least one digit',
  status: "status must be one of the funnel's statuses",
  updatedAfter: 'updatedAfter must be an ISO 8601 date-time with a zone, e.g. 2026-01-31T12:00:00Z',
  createdAfter: 'createdAfter must be an ISO 8601 date-time with a zone, e.g. 2026-01-31T12:00:00Z',
  cursor: `cursor must be a meta.nextCursor of at most ${MAX_CURSOR_LENGTH} characters`,
};

/**
 * The same rules as the REST query DTO, for callers that do not go through it (MCP). Answers the
 * filters as the SQL compares them; the status filter is checked against the funnel afterwards.
 */
export function validateListQuery(query: ListContactsQuery): NormalisedFilters {
  const problems: string[] = [];
  if (!Number.isInteger(query.page) || query.page < 0) problems.push(PAGING_RULES.page);
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_LIMIT) {
    problems.push(PAGING_RULES.limit);
  }
  if (!SORT_FIELDS.includes(query.sortField)) problems.push(PAGING_RULES.sortField);
  if (!SORT_ORDERS.includes(query.sortOrder)) problems.push(PAGING_RULES.sortOrder);
  if (query.cursor !== undefined) {
    if (typeof query.cursor !== 'string' || !query.cursor || query.cursor.length > MAX_CURSOR_LENGTH)
      problems.push(FILTER_RULES.cursor);
    else if (query.page !== 0) problems.push(PAGING_RULES.pageWithCursor);
  }

  const filters: NormalisedFilters = {};
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : undefined);
  if (query.email !== undefined) {
    const email = text(query.email);
    if (!email || email.length > MAX_LENGTH.email) problems.push(FILTER_RULES.email);
    else filters.emailLower = email.toLowerCase();
  }
  if (query.phone !== undefined) {
    const digits = phoneDigits(text(query.phone) ?? '');
    if (!digits) problems.push(FILTER_RULES.phone);
    else filters.phoneDigits = digits;
  }
  if (query.status !== undefined) {
    const status = text(query.status);
    if (!status) problems.push(FILTER_RULES.status);
    else filters.status = status;
  }
  for (const name of ['updatedAfter', 'createdAfter'] as const) {
    if (query[name] === undefined) continue;
    const millis =
      typeof query[name] === 'string' ? parseIso8601(query[name], { zoneRequired: true }) : undefined;
    // Sub-millisecond digits are dropped: the bound can only widen, never skip a change.
    if (millis === undefined) problems.push(FILTER_RULES[name]);
    else filters[name] = new Date(millis);
  }
  if (problems.length) throw new ValidationError(problems[0], problems);
  return filters;
}

/** A status filter names one of the funnel's statuses (400 otherwise, as on create). */
export function assertStatusFilter(filters: NormalisedFilters, statuses: readonly string[]): void {
  if (filters.status !== undefined && !statuses.includes(filters.status))
    throw new ValidationError(`status must be one of the funnel's statuses: ${statuses.join(', ')}`);
}

/** The digits of a phone number, as the phone filter and its index compare them. */
export function phoneDigits(phone: string): string {
  return phone.replace(/\D/g, '');
}

export function hasFilters(filters: NormalisedFilters): boolean {
  return Object.values(filters).some((value) => value !== undefined);
}
