import type { ContactCountsReader } from '@app/contacts';
import type { FunnelPage } from '@app/workspaces';
import { FILTER_NAMES, FilterName, parseSegmentKey } from '../events/session-definitions';
import type { AbTestFilter, MetricWindow, SessionFilter } from '../query/metric-query';
import type { RollupReader } from '../rollups/rollup-reader';
import { addSessions, emptySessions, SessionCounts } from '../rollups/counts';

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

/**
 * Session counters of the sessions the filter matches, per value of `by` (null: none; all under
 * null without `by`), summed from the `segment` dimension: one row per combination of the filter
 * attributes per bucket, however many sessions it holds. The read keeps only the segments the
 * filter matches.
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
    const group = at < 0 ? null : parseSegmentKey(key)[at];
    result.set(group, addSessions(result.get(group) ?? emptySessions(), counts));
  }
  return result;
}

/** Sessions per value of a filter attribute over the window, of the sessions the filter matches. */
export async function sessionsByAttribute(
  sources: MetricSources,
  funnelId: string,
  window: MetricWindow,
  by: FilterName,
  filter: SessionFilter,
): Promise<Map<string, SessionCounts>> {
  const sums = await segmentSessions(sources, funnelId, window, filter, by);
  sums.delete(null);
  return sums as Map<string, SessionCounts>;
}

/** Sessions per key of a session dimension (pages, answers) over the window, of the sessions the filter matches. */
export async function sessionsBy(
  sources: MetricSources,
  funnelId: string,
  window: MetricWindow,
  dimension: string,
  filter: SessionFilter,
): Promise<Map<string, SessionCounts>> {
  return (await sources.rollups.sessions(funnelId, window, [dimension], filter)).get(dimension) ?? new Map();
}

/** The window's session totals: sessions, conversions, completions and their time. */
export async function sessionTotals(
  sources: MetricSources,
  funnelId: string,
  window: MetricWindow,
  filter: SessionFilter,
): Promise<SessionCounts> {
  return (await segmentSessions(sources, funnelId, window, filter)).get(null) ?? emptySessions();
}
