import type { ContactCountsReader } from '@app/contacts';
import type { FunnelPage } from '@app/workspaces';
import { SESSION_DIMENSIONS } from '../events/session-definitions';
import type { AbTestFilter, MetricWindow } from '../query/metric-query';
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
}

export const round = (value: number, decimals: number) => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
};
export const ratio = (part: number, whole: number) => (whole ? round(part / whole, 4) : 0);
export const percent = (part: number, whole: number) => (whole ? round((part / whole) * 100, 2) : 0);
export const seconds = (totalMs: number, count: number) => (count ? round(totalMs / count / 1000, 2) : 0);

/** Sessions per key of one session dimension over the window. */
export async function sessionsBy(
  { rollups }: MetricSources,
  funnelId: string,
  window: MetricWindow,
  dimension: string,
): Promise<Map<string, SessionCounts>> {
  return (await rollups.sessions(funnelId, window, [dimension])).get(dimension) ?? new Map();
}

/** The window's session totals: sessions, conversions, completions and their time. */
export async function sessionTotals(
  sources: MetricSources,
  funnelId: string,
  window: MetricWindow,
): Promise<SessionCounts> {
  const all = await sessionsBy(sources, funnelId, window, SESSION_DIMENSIONS.all);
  return all.get('') ?? { sessions: 0, conversions: 0, completions: 0, completionMs: 0 };
}
