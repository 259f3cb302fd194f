import { z } from 'zod';
import {
  CHART_DESCRIPTIONS,
  CHART_SUBTYPES,
  INSIGHT_DESCRIPTION,
  KPI_DESCRIPTIONS,
  KPI_SUBTYPES,
  MetricsService,
  AB_TEST_FILTERS,
} from '@app/metrics';
import { CHART, INSIGHT, KPI } from './output-schemas';
import { READS } from './tool-annotations';
import type { ToolContext } from './tool-context';
import { toolResult } from './tool-result';
import { funnelIdInput } from './funnel-id.input';

const period = {
  funnelId: funnelIdInput,
  from: z.string().describe('Start of the period, ISO 8601 (e.g. 2025-01-01 or 2025-01-01T00:00:00Z)'),
  to: z.string().describe('End of the period, ISO 8601, after from; a date alone means the end of that day'),
  timezone: z
    .string()
    .optional()
    .describe(
      'Time zone by IANA name (e.g. Europe/Berlin, America/New_York): local days, hours and weekdays follow its rules, daylight saving included. Prefer it to offset; not both. Default UTC',
    ),
  offset: z
    .string()
    .optional()
    .describe(
      'Alternative to timezone, a fixed zone as JavaScript getTimezoneOffset() minutes, as a string: local time = UTC - offset ("-120" is UTC+2). Default "0"',
    ),
};

const bulletList = (entries: Record<string, string>) =>
  Object.entries(entries)
    .map(([name, text]) => `- ${name}: ${text}`)
    .join('\n');

export function registerMetricTools({ server, companyId }: ToolContext, metrics: MetricsService): void {
  server.registerTool(
    'get_chart_metrics',
    {
      title: 'Chart data of a funnel',
      description:
        'Data points {data: [{key, value, name?, relativeValue?}]} of one chart over a period. Subtypes:\n' +
        bulletList(CHART_DESCRIPTIONS),
      inputSchema: {
        ...period,
        subtype: z.enum(CHART_SUBTYPES).describe('Which chart'),
        abTest: z
          .enum(AB_TEST_FILTERS)
          .optional()
          .describe('Only for chart_page_to_page_conversion_rate: all, original or variant sessions'),
      },
      outputSchema: CHART,
      annotations: READS,
    },
    ({ funnelId, subtype, ...query }) =>
      toolResult(async () => ({ data: await metrics.chart(companyId, funnelId, subtype, query) })),
  );

  server.registerTool(
    'get_kpi_metrics',
    {
      title: 'A KPI of a funnel',
      description:
        'One figure {type, value, count?} over a period; rates are percentages 0-100 and carry count, ' +
        'their denominator. Subtypes:\n' +
        bulletList(KPI_DESCRIPTIONS),
      inputSchema: { ...period, subtype: z.enum(KPI_SUBTYPES).describe('Which KPI') },
      outputSchema: KPI,
      annotations: READS,
    },
    ({ funnelId, subtype, ...query }) => toolResult(() => metrics.kpi(companyId, funnelId, subtype, query)),
  );

  server.registerTool(
    'get_insight_metrics',
    {
      title: 'Answers to a funnel question',
      description: `${INSIGHT_DESCRIPTION} Returns {title, answers, groupedAnswers}; an unknown question is an error.`,
      inputSchema: {
        ...period,
        insightId: z
          .string()
          .describe('The question id, question_<n> (e.g. question_1); get_funnel lists them'),
      },
      outputSchema: INSIGHT,
      annotations: READS,
    },
    ({ funnelId, insightId, ...query }) =>
      toolResult(() => metrics.insight(companyId, funnelId, insightId, query)),
  );
}
