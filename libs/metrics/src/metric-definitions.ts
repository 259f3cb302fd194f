import { ChartDefinition, CHARTS } from './catalog/charts';
import { kpiCountsSessions } from './catalog/kpi-figures';
import { KpiDefinition, KPIS } from './catalog/kpis';

// The subtypes and descriptions REST, Swagger and MCP show, read from the one table of each kind
// (catalog/charts.ts, catalog/kpis.ts), in declaration order.

export type ChartSubtype = keyof typeof CHARTS;
export const CHART_SUBTYPES = Object.keys(CHARTS) as [ChartSubtype, ...ChartSubtype[]];

export type KpiSubtype = keyof typeof KPIS;
export const KPI_SUBTYPES = Object.keys(KPIS) as [KpiSubtype, ...KpiSubtype[]];

/** The charts that count sessions or their events, and so take the session filters. */
export const FILTERED_CHARTS = CHART_SUBTYPES.filter(
  (subtype) => (CHARTS[subtype] as ChartDefinition).counts !== 'contacts',
);
/** The KPIs that count sessions or their page views: they take the filters and a breakdown. */
export const FILTERED_KPIS = KPI_SUBTYPES.filter((subtype) =>
  kpiCountsSessions(KPIS[subtype] as KpiDefinition),
);

const describe = <K extends string>(table: Record<K, { description: string }>) =>
  Object.fromEntries(
    Object.entries(table).map(([k, v]) => [k, (v as { description: string }).description]),
  ) as Record<K, string>;

export const CHART_DESCRIPTIONS: Record<ChartSubtype, string> = describe(CHARTS);
export const KPI_DESCRIPTIONS: Record<KpiSubtype, string> = describe(KPIS);

export const INSIGHT_DESCRIPTION =
  'Answers to one question (`question_<n>`): title = the latest questionTitle; answers = how many sessions (started in the period) chose each answer, counting each session’s latest answer to the question; groupedAnswers = the same per combination of answers, joined by "; " in the order given. Most frequent first.';

/** `kpi_conversion_rate` → `kpiConversionRate`. */
export const kpiType = (subtype: KpiSubtype) =>
  subtype.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
