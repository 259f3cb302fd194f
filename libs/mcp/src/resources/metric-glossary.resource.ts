import type { McpServer } from '@modelcontextprotocol/server';
import { CHART_DESCRIPTIONS, INSIGHT_DESCRIPTION, KPI_DESCRIPTIONS } from '@app/metrics';

export const METRIC_GLOSSARY_URI = 'funnel-crm://metrics/glossary';

const section = (title: string, entries: Record<string, string>) =>
  [`## ${title}`, '', ...Object.entries(entries).map(([name, text]) => `- \`${name}\`: ${text}`)].join('\n');

/** What every KPI, chart and insight means, from the metric declarations: the same words as the tools'. */
export function metricGlossary(): string {
  return [
    '# Funnel metrics',
    '',
    'The subtypes of get_kpi_metrics and get_chart_metrics, and what get_insight_metrics answers.',
    '',
    section('KPIs (get_kpi_metrics)', KPI_DESCRIPTIONS),
    '',
    section('Charts (get_chart_metrics)', CHART_DESCRIPTIONS),
    '',
    '## Insights (get_insight_metrics)',
    '',
    INSIGHT_DESCRIPTION,
    '',
  ].join('\n');
}

/**
 * The metric glossary as a resource a host can attach to a conversation. It is product
 * documentation, no company's data, so it needs no scope, and it changes only with a release.
 */
export function registerMetricGlossary(server: McpServer): void {
  server.registerResource(
    'metric_glossary',
    METRIC_GLOSSARY_URI,
    {
      title: 'Funnel metrics glossary',
      description: 'What each KPI, chart and insight of the metrics tools means',
      mimeType: 'text/markdown',
      cacheHint: { ttlMs: 5 * 60_000, cacheScope: 'private' },
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: metricGlossary() }] }),
  );
}
