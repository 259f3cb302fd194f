import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiErrorResponses, ErrorResponseDoc } from '@app/core';
import { ChartResponse, InsightResponse, KpiResponse } from './dto/metrics.dto';
import { StepFunnelResponse } from './dto/step-funnel.dto';
import {
  CHART_DESCRIPTIONS,
  CHART_SUBTYPES,
  INSIGHT_DESCRIPTION,
  KPI_DESCRIPTIONS,
  KPI_SUBTYPES,
} from './metric-definitions';
import { TIMEZONE_PROBLEM, ZONE_CONFLICT } from './query/metric-query';

const list = (descriptions: Record<string, string>) =>
  Object.entries(descriptions)
    .map(([subtype, text]) => `- \`${subtype}\`: ${text}`)
    .join('\n');

const PERIOD =
  'The period is `from <= t <= to`. Sessions are session_start events in the period; what a session did later (pages viewed, conversion, completion, answers) counts at its start. Events of a session whose session_start has not arrived yet count once it does.';

const ApiMetricsFunnelIdParam = () =>
  ApiParam({ name: 'funnelId', format: 'uuid', description: 'A funnel of the key’s company' });

const INVALID_QUERY: ErrorResponseDoc = {
  description:
    'funnelId not a UUID; missing or invalid from/to/offset/timezone; both offset and timezone; from not before to; period over 3660 days; unknown subtype; abTest, a filter, breakdown or compare where unsupported (the problem names it), or an unknown breakdown or compare. `error` is the first problem, `details` lists them all.',
  examples: [
    'from must be before to',
    ZONE_CONFLICT,
    TIMEZONE_PROBLEM,
    'device is not supported by kpi_new_contacts: it does not count sessions',
  ],
};

const FILTERS =
  'Filters (`device`, `utmSource`, `utmMedium`, `utmCampaign`, `abVariant`, each repeatable for "any of") keep the sessions whose session_start carried one of the values; figures over page views or clicks count the events of those sessions. Figures over contacts or messages refuse them (400). `compare=previous_period` adds the figure over the period of the same local length just before `from`.';
const FUNNEL_NOT_FOUND: ErrorResponseDoc = {
  description: 'Funnel not found (or it belongs to another company)',
};

export const ChartDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Chart data',
      description: `${PERIOD}\n\n${FILTERS}\n\n${list(CHART_DESCRIPTIONS)}`,
    }),
    ApiMetricsFunnelIdParam(),
    ApiParam({ name: 'subtype', enum: CHART_SUBTYPES }),
    ApiOkResponse({ type: ChartResponse }),
    ApiErrorResponses({ 400: INVALID_QUERY, 404: FUNNEL_NOT_FOUND }),
  );

export const KpiDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'KPI',
      description: `${PERIOD} \`type\` is the camelCase of the subtype (e.g. kpiConversionRate); rates are percentages 0–100 with \`count\`, the denominator; durations are seconds. Figures are rounded to 2 decimals. abTest is refused.\n\n${FILTERS} \`breakdown\` answers the KPI per value of a session attribute (KPIs over sessions and page views).\n\n${list(KPI_DESCRIPTIONS)}`,
    }),
    ApiMetricsFunnelIdParam(),
    ApiParam({ name: 'subtype', enum: KPI_SUBTYPES }),
    ApiOkResponse({ type: KpiResponse }),
    ApiErrorResponses({ 400: INVALID_QUERY, 404: FUNNEL_NOT_FOUND }),
  );

export const InsightDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Answers to a question',
      description: `${PERIOD}\n\n${INSIGHT_DESCRIPTION} The filters apply; abTest, breakdown and compare are refused.`,
    }),
    ApiMetricsFunnelIdParam(),
    ApiParam({ name: 'insightId', description: 'A question id: question_<n>', example: 'question_1' }),
    ApiOkResponse({ type: InsightResponse }),
    ApiErrorResponses({
      400: INVALID_QUERY,
      404: { description: 'Funnel not found, or no answer to this question was ever received' },
    }),
  );

export const StepFunnelDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Step funnel',
      description:
        'Of the sessions that started in the period (and match the filters), how many reached each step in the order given, each at or after the step before and at most `within` after the session started. A step is reached by the first matching event: `page:<slug>` a page view, `click:<buttonId>` a click, `answer:question_<n>` an answer, `conversion`, `completion`. `relativeValue` = value ÷ the previous step’s value; `medianSecondsFromPrevious` = median seconds between reaching the previous step and this one, over the sessions that reached this one.',
    }),
    ApiMetricsFunnelIdParam(),
    ApiOkResponse({ type: StepFunnelResponse }),
    ApiErrorResponses({
      400: {
        description:
          'funnelId not a UUID; missing or invalid steps (2 to 10) or within; invalid period, time zone or filters',
        examples: ['steps is required'],
      },
      404: FUNNEL_NOT_FOUND,
    }),
  );
