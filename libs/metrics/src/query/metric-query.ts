import { parseIso8601, ValidationError } from '@app/core';
import { FILTER_NAMES, FilterName } from '../events/session-definitions';
import { DAY_MS, MINUTE_MS } from '../time/buckets';
import { FixedOffsetZone, ianaZone, LocalZone } from '../time/time-zone';

export const AB_TEST_FILTERS = ['all', 'original', 'variant'] as const;
export type AbTestFilter = (typeof AB_TEST_FILTERS)[number];

export const OFFSET_LIMIT_MINUTES = 840;
export const MAX_PERIOD_DAYS = 3660;

/** Query parameters as they arrive (REST query string or MCP tool arguments). */
export interface MetricQuery {
  from?: unknown;
  to?: unknown;
  offset?: unknown;
  timezone?: unknown;
  abTest?: unknown;
  device?: unknown;
  utmSource?: unknown;
  utmMedium?: unknown;
  utmCampaign?: unknown;
  abVariant?: unknown;
  breakdown?: unknown;
  compare?: unknown;
}

/** The sessions a figure counts: each named attribute must be one of its values ("any of"). */
export type SessionFilter = Partial<Record<FilterName, string[]>>;

export const COMPARISONS = ['previous_period'] as const;
type Comparison = (typeof COMPARISONS)[number];

/** A validated period: `from <= t <= to` in epoch ms, and the caller's time zone. */
export interface MetricWindow {
  from: number;
  to: number;
  /** Local days, hours and weekdays follow it: a fixed `offset` or a named `timezone`. */
  zone: LocalZone;
}

/**
 * The period of the same length just before the window, in its time zone: as long in local time
 * (a local day stays a local day across a daylight-saving change), ending where the window starts.
 */
export function previousWindow(window: MetricWindow): MetricWindow {
  const { from, to, zone } = window;
  const wallClock = (ms: number) => ms - zone.offsetAt(ms) * MINUTE_MS;
  const length = wallClock(to + 1) - wallClock(from);
  return { from: zone.toUtc(wallClock(from) - length), to: from - 1, zone };
}

/** The window as a half-open range: `to` covers its whole millisecond. */
export const countRange = (window: MetricWindow) => ({ from: window.from, to: window.to + 1 });

interface ParsedQuery {
  window: MetricWindow;
  abTest?: AbTestFilter;
  /** Empty when no filter is given. */
  filter: SessionFilter;
  breakdown?: FilterName;
  compare?: Comparison;
}

/**
 * What a figure accepts besides the period: the name it is refused under, whether it counts
 * sessions or their events (then it takes the filters), and whether it takes abTest, a breakdown
 * and a comparison. Derived from the figure's declaration (catalog/).
 */
interface FigureSupport {
  abTest: boolean;
  figure?: string;
  sessions?: boolean;
  breakdown?: boolean;
  compare?: boolean;
}

const ISO_HINT = 'an ISO 8601 date or date-time (e.g. 2025-01-01T00:00:00Z)';
const OFFSET_PROBLEM = `offset must be a whole number of minutes from -${OFFSET_LIMIT_MINUTES} to ${OFFSET_LIMIT_MINUTES} (JavaScript getTimezoneOffset: -120 is UTC+2)`;
export const TIMEZONE_PROBLEM = 'timezone must be an IANA time zone name (e.g. Europe/Berlin)';
export const ZONE_CONFLICT = 'offset and timezone are alternatives: give one of them';

/** The caller's zone: `timezone` by name or a fixed `offset` (default 0); problems are added to `problems`. */
export function parseZone(query: MetricQuery, problems: string[]): LocalZone {
  if (query.timezone !== undefined) {
    if (query.offset !== undefined) problems.push(ZONE_CONFLICT);
    const zone = typeof query.timezone === 'string' ? ianaZone(query.timezone.trim()) : undefined;
    if (zone) return zone;
    problems.push(TIMEZONE_PROBLEM);
    return new FixedOffsetZone(0);
  }
  if (query.offset === undefined) return new FixedOffsetZone(0);
  const raw = query.offset;
  const valid = (typeof raw === 'string' && /^[+-]?\d{1,4}$/.test(raw.trim())) || Number.isInteger(raw);
  const offset = valid ? Number(typeof raw === 'string' ? raw.trim() : raw) : NaN;
  if (!valid || Math.abs(offset) > OFFSET_LIMIT_MINUTES) {
    problems.push(OFFSET_PROBLEM);
    return new FixedOffsetZone(0);
  }
  return new FixedOffsetZone(offset);
}

/**
 * Validates from/to/offset/timezone/abTest once for REST and MCP alike. A date-time without a zone
 * and a date-only value are read in the caller's time zone; a date-only `to` means the end of that
 * (local) day.
 */
export function parseMetricQuery(query: MetricQuery, supports: FigureSupport): ParsedQuery {
  const problems: string[] = [];
  const zone = parseZone(query, problems);
  const instant = (name: 'from' | 'to'): number | undefined => {
    const raw = query[name];
    if (raw === undefined || raw === '') {
      problems.push(`${name} is required`);
      return undefined;
    }
    const ms =
      typeof raw === 'string'
        ? parseIso8601(raw.trim(), {
            toUtc: (wallClock) => zone.toUtc(wallClock),
            endOfDay: name === 'to',
            roundUp: name === 'from',
          })
        : undefined;
    if (ms === undefined) problems.push(`${name} must be ${ISO_HINT}`);
    return ms;
  };
  const from = instant('from');
  const to = instant('to');
  if (from !== undefined && to !== undefined) {
    if (from >= to) problems.push('from must be before to');
    else if (to - from > MAX_PERIOD_DAYS * DAY_MS)
      problems.push(`the period must not exceed ${MAX_PERIOD_DAYS} days`);
  }
  let abTest: AbTestFilter | undefined;
  if (query.abTest !== undefined) {
    if (!supports.abTest) problems.push('abTest is only supported by chart_page_to_page_conversion_rate');
    else if (!AB_TEST_FILTERS.includes(query.abTest as AbTestFilter)) {
      problems.push(`abTest must be one of ${AB_TEST_FILTERS.join(', ')}`);
    } else abTest = query.abTest as AbTestFilter;
  }
  const filter = parseFilter(query, supports, problems);
  let breakdown: FilterName | undefined;
  if (query.breakdown !== undefined) {
    if (!supports.breakdown) problems.push(`breakdown is not supported by ${supports.figure}`);
    else if (!FILTER_NAMES.includes(query.breakdown as FilterName))
      problems.push(`breakdown must be one of ${FILTER_NAMES.join(', ')}`);
    else breakdown = query.breakdown as FilterName;
  }
  let compare: Comparison | undefined;
  if (query.compare !== undefined) {
    if (!supports.compare) problems.push(`compare is not supported by ${supports.figure}`);
    else if (!COMPARISONS.includes(query.compare as Comparison))
      problems.push(`compare must be one of ${COMPARISONS.join(', ')}`);
    else compare = query.compare as Comparison;
  }
  if (problems.length) throw new ValidationError(problems[0], problems);
  return { window: { from: from as number, to: to as number, zone }, abTest, filter, breakdown, compare };
}

/** The filters given: each a string or a list of strings (a repeated query parameter). */
function parseFilter(query: MetricQuery, supports: FigureSupport, problems: string[]): SessionFilter {
  const filter: SessionFilter = {};
  for (const name of FILTER_NAMES) {
    const raw = query[name];
    if (raw === undefined) continue;
    if (!supports.sessions) {
      problems.push(`${name} is not supported by ${supports.figure}: it does not count sessions`);
      continue;
    }
    const values = Array.isArray(raw) ? raw : [raw];
    if (!values.length || values.some((v) => typeof v !== 'string'))
      problems.push(`${name} must be a string (repeat the parameter for several values)`);
    else filter[name] = values as string[];
  }
  return filter;
}

/** True when the filter narrows anything. */
export const isFiltered = (filter: SessionFilter) => Object.keys(filter).length > 0;
