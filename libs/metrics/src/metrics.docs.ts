import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiErrorResponses, ErrorResponseDoc } from '@app/core';
import { ChartResponse, InsightResponse, KpiResponse } from './dto/metrics.dto';
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
    'funnelId not a UUID; missing or invalid from/to/offset/timezone; both offset and timezone; from not before to; period over 3660 days; unknown subtype; abTest where unsupported. `error` is the first problem, `details` lists them all.',
  examples: ['from must be before to', ZONE_CONFLICT, TIMEZONE_PROBLEM],
};
const FUNNEL_NOT_FOUND: ErrorResponseDoc = {
  description: 'Funnel not found (or it belongs to another company)',
};

export const ChartDocs = () =>
  applyDecorators(
    ApiOperation({ summary: 'Chart data', description: `${PERIOD}\n\n${list(CHART_DESCRIPTIONS)}` }),
    ApiMetricsFunnelIdParam(),
    ApiParam({ name: 'subtype', enum: CHART_SUBTYPES }),
    ApiOkResponse({ type: ChartResponse }),
    ApiErrorResponses({ 400: INVALID_QUERY, 404: FUNNEL_NOT_FOUND }),
  );

export const KpiDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'KPI',
      description: `${PERIOD} \`type\` is the camelCase of the subtype (e.g. kpiConversionRate); rates are percentages 0–100 with \`count\`, the denominator; durations are seconds. Figures are rounded to 2 decimals. abTest is refused.\n\n${list(KPI_DESCRIPTIONS)}`,
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
      description: `${PERIOD}\n\n${INSIGHT_DESCRIPTION} abTest is refused.`,
    }),
    ApiMetricsFunnelIdParam(),
    ApiParam({ name: 'insightId', description: 'A question id: question_<n>', example: 'question_1' }),
    ApiOkResponse({ type: InsightResponse }),
    ApiErrorResponses({
      400: INVALID_QUERY,
      404: { description: 'Funnel not found, or no answer to this question was ever received' },
    }),
  );
