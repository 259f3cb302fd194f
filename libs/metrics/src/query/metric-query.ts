import { ValidationError } from '@app/core';
import { parseIso8601 } from '../time/iso-8601';

export const AB_TEST_FILTERS = ['all', 'original', 'variant'] as const;
export type AbTestFilter = (typeof AB_TEST_FILTERS)[number];

export const OFFSET_LIMIT_MINUTES = 840;
export const MAX_PERIOD_DAYS = 3660;
const DAY_MS = 86_400_000;

/** Query parameters as they arrive (REST query string or MCP tool arguments). */
export interface MetricQuery {
  from?: unknown;
  to?: unknown;
  offset?: unknown;
  abTest?: unknown;
}

/** A validated period: `from <= t <= to` in epoch ms, and the caller's time zone offset. */
export interface MetricWindow {
  from: number;
  to: number;
  /** JavaScript getTimezoneOffset() minutes: local time = UTC − offset. */
  offset: number;
}

export interface ParsedQuery {
  window: MetricWindow;
  abTest?: AbTestFilter;
}

const ISO_HINT = 'an ISO 8601 date or date-time (e.g. 2025-01-01T00:00:00Z)';

/**
 * Validates from/to/offset/abTest once for REST and MCP alike. A date-time without a zone and a
 * date-only value are read in the `offset` time zone; a date-only `to` means the end of that day.
 */
export function parseMetricQuery(query: MetricQuery, supports: { abTest: boolean }): ParsedQuery {
  const problems: string[] = [];
  let offset = 0;
  if (query.offset !== undefined) {
    const raw = query.offset;
    const valid = (typeof raw === 'string' && /^[+-]?\d{1,4}$/.test(raw.trim())) || Number.isInteger(raw);
    offset = valid ? Number(typeof raw === 'string' ? raw.trim() : raw) : NaN;
    if (!valid || Math.abs(offset) > OFFSET_LIMIT_MINUTES) {
      problems.push(
        `offset must be a whole number of minutes from -${OFFSET_LIMIT_MINUTES} to ${OFFSET_LIMIT_MINUTES} (JavaScript getTimezoneOffset: -120 is UTC+2)`,
      );
      offset = 0;
    }
  }
  const instant = (name: 'from' | 'to'): number | undefined => {
    const raw = query[name];
    if (raw === undefined || raw === '') {
      problems.push(`${name} is required`);
      return undefined;
    }
    const ms =
      typeof raw === 'string'
        ? parseIso8601(raw.trim(), {
            localOffsetMinutes: offset,
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
  if (problems.length) throw new ValidationError(problems[0], problems);
  return { window: { from: from as number, to: to as number, offset }, abTest };
}
