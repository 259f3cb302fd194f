import type { ContactCountsReader } from '@app/contacts';
import type { FunnelPage } from '@app/workspaces';
import {
  DECLARED_DIMENSIONS,
  FILTER_NAMES,
  FilterName,
  parseSegmentKey,
  SESSION_DIMENSIONS,
  sessionDimension,
} from '../events/session-definitions';
import { AbTestFilter, isFiltered, MetricWindow, SessionFilter } from '../query/metric-query';
import type { RollupReader } from '../rollups/rollup-reader';
import type { SessionCounts } from '../rollups/rollup-deltas';

/** What a chart or KPI is computed from: the rollups of metrics and the CRM counts of contacts. */
export interface MetricSources {
  rollups: RollupReader;
  crm: ContactCountsReader;
}

export interface ChartContext {
  funnelId: string;
  pages: FunnelPage[];
  window: MetricWindow;
  abTest?: AbTestFilter;
  /** The sessions counted (for event-time charts, whose events are counted); empty for all. */
  filter: SessionFilter;
}

export const round = (value: number, decimals: number) => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
};
export const ratio = (part: number, whole: number) => (whole ? round(part / whole, 4) : 0);
export const percent = (part: number, whole: number) => (whole ? round((part / whole) * 100, 2) : 0);
export const seconds = (totalMs: number, count: number) => (count ? round(totalMs / count / 1000, 2) : 0);

export const noSessions = (): SessionCounts => ({
  sessions: 0,
  conversions: 0,
  completions: 0,
  completionMs: 0,
});

/** Adds `from` to `into` (or subtracts it, with sign −1). */
export function addSessions(into: SessionCounts, from: SessionCounts, sign: 1 | -1 = 1): SessionCounts {
  into.sessions += sign * from.sessions;
  into.conversions += sign * from.conversions;
  into.completions += sign * from.completions;
  into.completionMs += sign * from.completionMs;
  return into;
}

/**
 * Session counters of the sessions the filter matches, per value of `by` (null: none; all under
 * null without `by`), summed from the `segment` dimension: one row per combination of the filter
 * attributes per bucket, however many sessions it holds.
 */
export async function segmentSessions(
  { rollups }: MetricSources,
  funnelId: string,
  window: MetricWindow,
  filter: SessionFilter,
  by?: FilterName,
): Promise<Map<string | null, SessionCounts>> {
  const segments = await rollups.segments(funnelId, window, filter);
  const result = new Map<string | null, SessionCounts>();
  const at = by ? FILTER_NAMES.indexOf(by) : -1;
  for (const [key, counts] of segments) {
    const values = parseSegmentKey(key);
    const matches = FILTER_NAMES.every((name, i) => {
      const wanted = filter[name];
      return !wanted || (values[i] !== null && wanted.includes(values[i] as string));
    });
    if (!matches) continue;
    const group = at < 0 ? null : values[at];
    result.set(group, addSessions(result.get(group) ?? noSessions(), counts));
  }
  return result;
}

/**
 * Session counters of the sessions the filter matches per value of `by` (null: none). Without a
 * filter, from the dimension that counts sessions by that attribute with their outcomes when one
 * is declared: one row per value in each bucket, and the sessions without it the totals less the
 * rest. Otherwise from the segments.
 */
export async function sessionsPerValue(
  sources: MetricSources,
  funnelId: string,
  window: MetricWindow,
  filter: SessionFilter,
  by: FilterName,
): Promise<Map<string | null, SessionCounts>> {
  const declared = DECLARED_DIMENSIONS.find(([, d]) => d.shape === 'attribute' && d.attribute === by);
  if (isFiltered(filter) || !declared) return segmentSessions(sources, funnelId, window, filter, by);
  const [dimension] = declared;
  const sums = await sources.rollups.sessions(funnelId, window, [SESSION_DIMENSIONS.all, dimension]);
  const result = new Map<string | null, SessionCounts>(sums.get(dimension));
  const none = { ...(sums.get(SESSION_DIMENSIONS.all)?.get('') ?? noSessions()) };
  for (const counts of result.values()) addSessions(none, counts, -1);
  if (none.sessions) result.set(null, none);
  return result;
}

/** Sessions per key of one session dimension over the window, of the sessions the filter matches. */
export async function sessionsBy(
  sources: MetricSources,
  funnelId: string,
  window: MetricWindow,
  dimension: string,
  filter: SessionFilter = {},
): Promise<Map<string, SessionCounts>> {
  const { definition } = sessionDimension(dimension);
  // A filter attribute's sessions are in the segments; other dimensions read the sessions.
  if (
    isFiltered(filter) &&
    definition.shape === 'attribute' &&
    (FILTER_NAMES as string[]).includes(definition.attribute)
  ) {
    const by = await segmentSessions(sources, funnelId, window, filter, definition.attribute as FilterName);
    by.delete(null);
    return by as Map<string, SessionCounts>;
  }
  return (await sources.rollups.sessions(funnelId, window, [dimension], filter)).get(dimension) ?? new Map();
}

/** The window's session totals: sessions, conversions, completions and their time. */
export async function sessionTotals(
  sources: MetricSources,
  funnelId: string,
  window: MetricWindow,
  filter: SessionFilter = {},
): Promise<SessionCounts> {
  if (isFiltered(filter))
    return (await segmentSessions(sources, funnelId, window, filter)).get(null) ?? noSessions();
  const all = await sessionsBy(sources, funnelId, window, SESSION_DIMENSIONS.all);
  return all.get('') ?? noSessions();
}
