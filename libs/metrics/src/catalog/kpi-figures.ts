import type { KpiBreakdownEntry } from '../dto/metrics.dto';
import type { FilterName } from '../events/session-definitions';
import { isFiltered, MetricWindow, SessionFilter } from '../query/metric-query';
import { addSessions, emptySessions, SessionCounts } from '../rollups/counts';
import type { KpiDefinition, KpiValue, TimedViews } from './kpis';
import { MetricSources, segmentSessions, sessionTotals } from './metric-sources';

/** The most keys a breakdown lists; the rest are summed as OTHER_KEY. */
export const BREAKDOWN_KEYS = 20;
export const OTHER_KEY = '(other)';
/** Sessions (or page views) without the attribute. */
export const NONE_KEY = '(none)';

/** Whether a KPI counts sessions or their events, and so takes the filters and a breakdown. */
export const kpiCountsSessions = (kpi: KpiDefinition) =>
  kpi.reads === 'sessions' || kpi.reads === 'pageViews';

/** A KPI over the window, of the sessions the filter matches (every session when it is empty). */
export async function kpiFigure(
  kpi: KpiDefinition,
  funnelId: string,
  window: MetricWindow,
  sources: MetricSources,
  filter: SessionFilter,
): Promise<KpiValue> {
  switch (kpi.reads) {
    case 'sessions':
      return kpi.of(await sessionTotals(sources, funnelId, window, filter));
    case 'pageViews': {
      const total: TimedViews = { timed: 0, totalMs: 0 };
      for (const c of (await sources.rollups.events(funnelId, window, 'page', filter)).values()) {
        total.timed += c.timed;
        total.totalMs += c.totalMs;
      }
      return kpi.of(total);
    }
    default:
      if (isFiltered(filter)) throw new Error('a filter reached a KPI that counts no sessions');
      return kpi.build(funnelId, window, sources);
  }
}

/**
 * A KPI per value of a session attribute: each key's counters give its value as the whole's give
 * the KPI's, so the counts add up to the KPI's count (its value when it has none). Largest count
 * first (ties by key), at most BREAKDOWN_KEYS keys, then OTHER_KEY (the rest summed) and NONE_KEY.
 */
export async function kpiBreakdown(
  kpi: KpiDefinition,
  funnelId: string,
  window: MetricWindow,
  sources: MetricSources,
  filter: SessionFilter,
  by: FilterName,
): Promise<KpiBreakdownEntry[]> {
  switch (kpi.reads) {
    case 'sessions':
      return entries(
        await segmentSessions(sources, funnelId, window, filter, by),
        kpi.of,
        addSessions,
        emptySessions,
      );
    case 'pageViews':
      return entries(
        await sources.rollups.timedPageViewsBy(funnelId, window, by, filter),
        kpi.of,
        (into, from) => ({ timed: into.timed + from.timed, totalMs: into.totalMs + from.totalMs }),
        () => ({ timed: 0, totalMs: 0 }),
      );
    default:
      throw new Error('a breakdown reached a KPI that counts no sessions');
  }
}

function entries<C extends SessionCounts | TimedViews>(
  byKey: Map<string | null, C>,
  of: (c: C) => KpiValue,
  add: (into: C, from: C) => C,
  empty: () => C,
): KpiBreakdownEntry[] {
  const entry = (key: string, c: C): KpiBreakdownEntry => {
    const figure = of(c);
    return { key, value: figure.value, count: figure.count ?? figure.value };
  };
  const keyed = [...byKey.entries()]
    .filter((e): e is [string, C] => e[0] !== null)
    .map(([key, c]) => ({ entry: entry(key, c), counts: c }))
    .sort(
      (a, b) =>
        b.entry.count - a.entry.count || (a.entry.key < b.entry.key ? -1 : a.entry.key > b.entry.key ? 1 : 0),
    );
  const result = keyed.slice(0, BREAKDOWN_KEYS).map((k) => k.entry);
  const rest = keyed.slice(BREAKDOWN_KEYS);
  if (rest.length)
    result.push(
      entry(
        OTHER_KEY,
        rest.reduce((sum, k) => add(sum, k.counts), empty()),
      ),
    );
  const none = byKey.get(null);
  if (none) result.push(entry(NONE_KEY, none));
  return result;
}
