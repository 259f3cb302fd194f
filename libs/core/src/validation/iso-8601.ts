const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

export interface IsoParseOptions {
  /** Reject values without a `Z` or `±hh:mm` designator (and date-only values). */
  zoneRequired?: boolean;
  /**
   * Zone of values without a designator, in `Date.getTimezoneOffset()` minutes (local = UTC − offset).
   * Ignored when `zoneRequired`.
   */
  localOffsetMinutes?: number;
  /**
   * Zone of values without a designator, as the instant of a wall-clock time (given as epoch ms as
   * if it were UTC); takes the place of `localOffsetMinutes` for zones whose offset changes.
   */
  toUtc?: (wallClock: number) => number;
  /** A date-only value stands for the last millisecond of that day instead of its first. */
  endOfDay?: boolean;
  /** Sub-millisecond digits round up instead of down (an inclusive lower bound must not widen). */
  roundUp?: boolean;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const daysInMonth = (year: number, month: number) =>
  month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];

/** The number written at value[from, from + length), or NaN when a character is not a digit. */
function digitsAt(value: string, from: number, length: number): number {
  let n = 0;
  for (let i = from; i < from + length; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NaN;
    n = n * 10 + digit;
  }
  return n;
}

/**
 * `YYYY-MM-DDTHH:MM:SS.sssZ`, the shape `Date.toISOString()` writes and tracking clients send by
 * the thousand, read by character codes: several times cheaper than the general expression.
 * Undefined when the value has another shape or is out of range (the general path then decides).
 */
function parseUtcMillis(value: string): number | undefined {
  if (value.length !== 24 || value[10] !== 'T' || value[23] !== 'Z') return undefined;
  if (value[4] !== '-' || value[7] !== '-' || value[13] !== ':' || value[16] !== ':' || value[19] !== '.')
    return undefined;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  const hour = digitsAt(value, 11, 2);
  const minute = digitsAt(value, 14, 2);
  const second = digitsAt(value, 17, 2);
  const ms = digitsAt(value, 20, 3);
  // NaN fails every comparison, so a non-digit leaves through the general path too.
  if (!(year >= 1000 && month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59))
    return undefined;
  if (!(ms >= 0) || day > daysInMonth(year, month)) return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

/** Epoch milliseconds of an ISO 8601 calendar date or date-time, or undefined when it is not one. */
export function parseIso8601(value: string, options: IsoParseOptions = {}): number | undefined {
  const common = parseUtcMillis(value);
  if (common !== undefined) return common;
  const m = ISO.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  // Date.UTC maps two-digit years to 19xx; no metric predates the year 1000 anyway.
  if (year < 1000) return undefined;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  const dateOnly = h === undefined;
  if (options.zoneRequired && (dateOnly || zone === undefined)) return undefined;
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  if (hour > 23 || minute > 59 || second > 59) return undefined;

  const digits = (fraction ?? '').padEnd(3, '0');
  let ms = Number(digits.slice(0, 3));
  if (options.roundUp && /[1-9]/.test(digits.slice(3))) ms += 1;

  const local = (wallClock: number) =>
    options.toUtc ? options.toUtc(wallClock) : wallClock + (options.localOffsetMinutes ?? 0) * 60_000;
  // The end of a local day is the instant before the next one starts (a day may have 23 or 25 hours).
  if (dateOnly && options.endOfDay) return local(Date.UTC(year, month - 1, day + 1)) - 1;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (zone === undefined) return local(utc);
  if (zone === 'Z' || zone === 'z') return utc;
  const [, sign, zh, zm] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone) as RegExpExecArray;
  const zoneMinutes = Number(zh) * 60 + Number(zm ?? 0);
  if (Number(zh) > 23 || Number(zm ?? 0) > 59) return undefined;
  // `+02:00` is two hours ahead of UTC, so UTC is the local time minus two hours.
  return utc - (sign === '-' ? -1 : 1) * zoneMinutes * 60_000;
}
