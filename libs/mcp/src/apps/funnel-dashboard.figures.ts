import type { ChartSubtype, KpiSubtype } from '@app/metrics';

// What the funnel dashboard shows, each figure exactly as get_kpi_metrics and get_chart_metrics
// (and the REST routes) answer it for the same period.

export const DASHBOARD_KPIS = [
  'kpi_total_sessions',
  'kpi_new_contacts',
  'kpi_conversion_rate',
  'kpi_completion_rate',
  'kpi_average_time_on_page',
  'kpi_time_to_completion',
] as const satisfies readonly KpiSubtype[];

export const DASHBOARD_CHARTS = [
  'chart_page_to_page_conversion_rate',
  'chart_contacts_over_time',
  'chart_visitor_devices',
  'chart_top_utm_sources',
] as const satisfies readonly ChartSubtype[];
