import { createHash } from 'node:crypto';
import { isUuid, ValidationError } from '@app/core';
import {
  type NormalisedFilters,
  type SortField,
  type SortOrder,
  TIMESTAMP_SORT_FIELDS,
} from './contacts-list.query';

/** What a cursor's query filters on: the list's filters, or a search's filters as canonical text. */
export type CursorFilters = NormalisedFilters | { search: string };

/** Where the next page starts: after the row with this sort value and id, in the query's order. */
export interface ListPosition {
  /** The last row's sort value as PostgreSQL prints it (timestamps to the microsecond); null when missing. */
  value: string | null;
  id: string;
  /** The 0-based number of the page the cursor leads to (so `meta.page` stays meaningful). */
  page: number;
}

interface CursorBody {
  f: SortField;
  o: SortOrder;
  h: string;
  v: string | null;
  i: string;
  p: number;
}

const MISMATCH =
  'cursor was made for another sortField, sortOrder or filter: repeat the request that answered it, changing only cursor';
const INVALID = 'cursor is not valid: pass meta.nextCursor unchanged';

/**
 * An opaque cursor: base64url JSON of the position and the query it belongs to. It is not
 * signed: a forged one can only point into the caller's own funnel, and every member is checked.
 */
export function encodeCursor(
  sortField: SortField,
  sortOrder: SortOrder,
  filters: CursorFilters,
  position: ListPosition,
): string {
  const body: CursorBody = {
    f: sortField,
    o: sortOrder,
    h: filtersHash(filters),
    v: position.value,
    i: position.id,
    p: position.page,
  };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The position a cursor holds; 400 when it is malformed or belongs to another query. */
export function decodeCursor(
  cursor: string,
  sortField: SortField,
  sortOrder: SortOrder,
  filters: CursorFilters,
): ListPosition {
  let body: Partial<CursorBody>;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorBody>;
  } catch {
    throw new ValidationError(INVALID);
  }
  const valid =
    body &&
    typeof body === 'object' &&
    isUuid(body.i) &&
    Number.isSafeInteger(body.p) &&
    body.p! > 0 &&
    (body.v === null || sortValueValid(sortField, body.v));
  if (!valid) throw new ValidationError(INVALID);
  if (body.f !== sortField || body.o !== sortOrder || body.h !== filtersHash(filters))
    throw new ValidationError(MISMATCH);
  return { value: body.v!, id: body.i!, page: body.p! };
}

// timestamptz as PostgreSQL prints it (DateStyle ISO): `2026-01-31 12:00:00.123456+00`.
const PRINTED_TIMESTAMP =
  /^(\d{4,6})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?[+-](\d{2})(?::[0-5]\d){0,2}( BC)?$/;
// timestamptz spans 4713 BC to 294276 AD; a year short of each end keeps any offset inside.
const MAX_YEAR = 294_275;
const MAX_YEAR_BC = 4_712;

/**
 * Whether a cursor's sort value is one PostgreSQL can compare with the sort column: text without
 * NUL for the text fields, a real calendar time for the timestamp ones. Anything else would fail
 * in the database as a 500, carrying the caller's text into the error log.
 */
function sortValueValid(sortField: SortField, value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 400 || value.includes('\u0000')) return false;
  if (!TIMESTAMP_SORT_FIELDS.includes(sortField)) return true;
  if (value === 'infinity' || value === '-infinity') return true;
  const parts = PRINTED_TIMESTAMP.exec(value);
  if (!parts) return false;
  const [year, month, day, hour, minute, second, offsetHours] = parts.slice(1, 8).map(Number);
  // The proleptic Gregorian calendar repeats every 400 years (1 BC is year 0); shifting into
  // 2000–2399 keeps Date.UTC away from its two-digit years.
  const astronomical = parts[8] ? 1 - year : year;
  const daysInMonth = new Date(Date.UTC(2000 + (((astronomical % 400) + 400) % 400), month, 0)).getUTCDate();
  return (
    year >= 1 &&
    year <= (parts[8] ? MAX_YEAR_BC : MAX_YEAR) &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 15
  );
}

function filtersHash(filters: CursorFilters): string {
  const canonical = Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value instanceof Date ? value.toISOString() : String(value)}`)
    .join('\n');
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 12);
}
