import { z } from 'zod';
import {
  CHART_DESCRIPTIONS,
  CHART_SUBTYPES,
  COMPARISONS,
  FILTER_NAMES,
  FilterName,
  INSIGHT_DESCRIPTION,
  KPI_DESCRIPTIONS,
  KPI_SUBTYPES,
  MAX_STEPS,
  MetricsService,
  MIN_STEPS,
  AB_TEST_FILTERS,
  STEP_FORMS,
  StepFunnelsService,
} from '@app/metrics';
import { METRIC_GLOSSARY_URI } from '../resources/metric-glossary.resource';
import { CHART, INSIGHT, KPI, STEP_FUNNEL } from './output-schemas';
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

// One optional list per filter attribute the metrics declare.
const filters = Object.fromEntries(
  FILTER_NAMES.map((name) => [
    name,
    z
      .array(z.string())
      .optional()
      .describe(
        `Only sessions whose ${name} is one of these (their events, for page view and click figures); refused by figures over contacts or messages`,
      ),
  ]),
) as Record<FilterName, z.ZodOptional<z.ZodArray<z.ZodString>>>;

const compare = z
  .enum(COMPARISONS)
  .optional()
  .describe(
    'previous_period adds previousValue: the figure over the period of the same length just before from',
  );

const bulletList = (entries: Record<string, string>) =>
  Object.entries(entries)
    .map(([name, text]) => `- ${name}: ${text}`)
    .join('\n');

export function registerMetricTools(
  context: ToolContext,
  metrics: MetricsService,
  stepFunnels: StepFunnelsService,
): void {
  registerChartTool(context, metrics);
  registerKpiTool(context, metrics);
  registerInsightTool(context, metrics);
  registerStepFunnelTool(context, stepFunnels);
}

function registerChartTool({ server, companyId }: ToolContext, metrics: MetricsService): void {
  server.registerTool(
    'get_chart_metrics',
    {
      title: 'Chart data of a funnel',
      description:
        'Data points {data: [{key, value, name?, relativeValue?, previousValue?, previousRelativeValue?}]} of one chart over a period, ' +
        `optionally of the sessions matching filters. subtype names the chart; its description says what each chart's points are ` +
        `(as does the ${METRIC_GLOSSARY_URI} resource).`,
      inputSchema: {
        ...period,
        ...filters,
        compare,
        subtype: z.enum(CHART_SUBTYPES).describe(`Which chart:\n${bulletList(CHART_DESCRIPTIONS)}`),
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
}

function registerKpiTool({ server, companyId }: ToolContext, metrics: MetricsService): void {
  server.registerTool(
    'get_kpi_metrics',
    {
      title: 'A KPI of a funnel',
      description:
        'One figure {type, value, count?, previousValue?, breakdown?} over a period; rates are percentages 0-100 and carry count, ' +
        `their denominator. subtype names the KPI; its description says what each KPI counts (as does the ${METRIC_GLOSSARY_URI} resource).`,
      inputSchema: {
        ...period,
        ...filters,
        compare,
        breakdown: z
          .enum(FILTER_NAMES)
          .optional()
          .describe(
            'The KPI per value of this session attribute ({key, value, count}, largest count first, at most 20 keys plus "(other)" and "(none)"); KPIs over sessions or page views only',
          ),
        subtype: z.enum(KPI_SUBTYPES).describe(`Which KPI:\n${bulletList(KPI_DESCRIPTIONS)}`),
      },
      outputSchema: KPI,
      annotations: READS,
    },
    ({ funnelId, subtype, ...query }) => toolResult(() => metrics.kpi(companyId, funnelId, subtype, query)),
  );
}

function registerInsightTool({ server, companyId }: ToolContext, metrics: MetricsService): void {
  server.registerTool(
    'get_insight_metrics',
    {
      title: 'Answers to a funnel question',
      description: `${INSIGHT_DESCRIPTION} Returns {title, answers, groupedAnswers}; an unknown question is an error.`,
      inputSchema: {
        ...period,
        ...filters,
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

function registerStepFunnelTool({ server, companyId }: ToolContext, stepFunnels: StepFunnelsService): void {
  server.registerTool(
    'get_step_funnel',
    {
      title: 'Step funnel of a funnel',
      description:
        'Of the sessions that started in the period (and match the filters), how many reached each step in order, ' +
        'each at or after the one before and at most `within` after the session started. Returns {data: [{step, value, ' +
        'relativeValue (÷ previous step), medianSecondsFromPrevious?}], meta: {exact, sampleRate, sessions, sampledSessions}}. Over many sessions ' +
        'the figures are estimated from a uniform sample of them (meta.exact false); exact: true reads every session, slower.',
      inputSchema: {
        ...period,
        ...filters,
        steps: z
          .array(z.string())
          .min(MIN_STEPS)
          .max(MAX_STEPS)
          .describe(`The steps in order, each one of ${STEP_FORMS.join(', ')}`),
        within: z
          .string()
          .optional()
          .describe(
            'ISO 8601 duration (e.g. P7D, PT30M) from the session start; default the length of the period',
          ),
        exact: z
          .boolean()
          .optional()
          .describe(
            'true: count every session of the period even when there are many (slower); default false',
          ),
      },
      outputSchema: STEP_FUNNEL,
      annotations: READS,
    },
    ({ funnelId, ...query }) => toolResult(() => stepFunnels.funnel(companyId, funnelId, query)),
  );
}
