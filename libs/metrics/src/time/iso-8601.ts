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
  /** A date-only value stands for the last millisecond of that day instead of its first. */
  endOfDay?: boolean;
  /** Sub-millisecond digits round up instead of down (an inclusive lower bound must not widen). */
  roundUp?: boolean;
}

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** Epoch milliseconds of an ISO 8601 calendar date or date-time, or undefined when it is not one. */
export function parseIso8601(value: string, options: IsoParseOptions = {}): number | undefined {
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

  let utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (dateOnly && options.endOfDay) utc = Date.UTC(year, month - 1, day + 1) - 1;
  if (zone === undefined) return utc + (options.localOffsetMinutes ?? 0) * 60_000;
  if (zone === 'Z' || zone === 'z') return utc;
  const [, sign, zh, zm] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone) as RegExpExecArray;
  const zoneMinutes = Number(zh) * 60 + Number(zm ?? 0);
  if (Number(zh) > 23 || Number(zm ?? 0) > 59) return undefined;
  // `+02:00` is two hours ahead of UTC, so UTC is the local time minus two hours.
  return utc - (sign === '-' ? -1 : 1) * zoneMinutes * 60_000;
}
