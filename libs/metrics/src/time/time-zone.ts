import { DAY_MS, MINUTE_MS } from './buckets';

/** A span of time with one UTC offset, from `since` (epoch ms) to the next period. */
export interface OffsetPeriod {
  since: number;
  /** JavaScript getTimezoneOffset() minutes: local time = UTC − offset. */
  offset: number;
}

/**
 * The caller's time zone: local days, hours and weekdays of the metrics follow it. Offsets are
 * JavaScript getTimezoneOffset() minutes (local time = UTC − offset), as the `offset` parameter.
 */
export interface LocalZone {
  /** The offset in force at an instant (epoch ms). */
  offsetAt(ms: number): number;
  /**
   * The instant of a local wall-clock time, given as epoch ms as if it were UTC. A time that
   * occurs twice (clocks turned back) is its earlier instant; a time that never occurs (clocks
   * turned forward) is read with the offset before the change, so it lands after the gap.
   */
  toUtc(wallClock: number): number;
  /** The offsets in force from `from` to `to` (both included): the first since `from`, then each change. */
  periods(from: number, to: number): OffsetPeriod[];
}

/** A zone that is always `offset` minutes behind UTC (the `offset` parameter). */
export class FixedOffsetZone implements LocalZone {
  constructor(readonly offset: number) {}

  offsetAt(): number {
    return this.offset;
  }

  toUtc(wallClock: number): number {
    return wallClock + this.offset * MINUTE_MS;
  }

  periods(from: number): OffsetPeriod[] {
    return [{ since: from, offset: this.offset }];
  }
}

// One formatter per zone: building one costs far more than formatting with it.
const formatters = new Map<string, Intl.DateTimeFormat>();
const formatterOf = (name: string) => {
  let formatter = formatters.get(name);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(name, formatter);
  }
  return formatter;
};

/**
 * An IANA time zone (`Europe/Berlin`), by the rules of the tz database Node.js carries. Offsets
 * are whole minutes (the local mean times of the 19th century had seconds; they are rounded), and
 * changes are found to the minute, which is where every rule of the database puts them since.
 */
export class IanaZone implements LocalZone {
  constructor(readonly name: string) {}

  offsetAt(ms: number): number {
    const parts: Record<string, number> = {};
    for (const part of formatterOf(this.name).formatToParts(ms)) parts[part.type] = Number(part.value);
    const wallClock = Date.UTC(
      parts.year,
      parts.month - 1,
      parts.day,
      parts.hour,
      parts.minute,
      parts.second,
    );
    const second = Math.floor(ms / 1000) * 1000;
    return Math.round((second - wallClock) / MINUTE_MS);
  }

  toUtc(wallClock: number): number {
    // The wall clock read as UTC lies within a day of the instant, so the offsets a day either
    // side are the only candidates.
    const before = this.offsetAt(wallClock - DAY_MS);
    const after = this.offsetAt(wallClock + DAY_MS);
    const valid = [before, after]
      .map((offset) => ({ offset, instant: wallClock + offset * MINUTE_MS }))
      .filter(({ offset, instant }) => this.offsetAt(instant) === offset)
      .map(({ instant }) => instant);
    return valid.length ? Math.min(...valid) : wallClock + before * MINUTE_MS;
  }

  periods(from: number, to: number): OffsetPeriod[] {
    const periods: OffsetPeriod[] = [{ since: from, offset: this.offsetAt(from) }];
    const last = new Date(to).getUTCFullYear();
    for (let year = new Date(from).getUTCFullYear(); year <= last; year++) {
      for (const change of this.changesIn(year))
        if (change.since > from && change.since <= to) periods.push(change);
    }
    return periods;
  }

  /** The offset changes of a UTC year, found once per zone and year (a year costs ~365 lookups). */
  private changesIn(year: number): OffsetPeriod[] {
    const key = `${this.name} ${year}`;
    let changes = yearChanges.get(key);
    if (changes) return changes;
    changes = [];
    const end = Date.UTC(year + 1, 0, 1);
    let current = this.offsetAt(Date.UTC(year, 0, 1));
    // A day apart: no zone has changed its offset twice within one day.
    for (let at = Date.UTC(year, 0, 1); at < end; at += DAY_MS) {
      const next = Math.min(at + DAY_MS, end);
      if (this.offsetAt(next) === current) continue;
      // The first whole minute with another offset, by bisection.
      let lo = Math.floor(at / MINUTE_MS);
      let hi = Math.ceil(next / MINUTE_MS);
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (this.offsetAt(mid * MINUTE_MS) === current) lo = mid;
        else hi = mid;
      }
      current = this.offsetAt(hi * MINUTE_MS);
      changes.push({ since: hi * MINUTE_MS, offset: current });
    }
    // Bounded: far more zone-years than any caller asks for, a few bytes each.
    if (yearChanges.size >= MAX_CACHED_YEARS) yearChanges.clear();
    yearChanges.set(key, changes);
    return changes;
  }
}

const MAX_CACHED_YEARS = 10_000;
const yearChanges = new Map<string, OffsetPeriod[]>();

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/** The zone of an IANA name (`Europe/Berlin`, `UTC`; any case), or undefined when there is none. */
export function ianaZone(name: string): IanaZone | undefined {
  // Names only: Intl also accepts offsets such as +01:00, which `offset` already expresses.
  if (!ZONE_NAME.test(name)) return undefined;
  try {
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    return new IanaZone(canonical);
  } catch {
    return undefined;
  }
}
