import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { ApiErrorResponse } from '@app/core';
import {
  ChartQueryDto,
  ChartResponse,
  InsightResponse,
  KpiResponse,
  MetricsQueryDto,
} from './dto/metrics.dto';
import {
  CHART_DESCRIPTIONS,
  CHART_SUBTYPES,
  INSIGHT_DESCRIPTION,
  KPI_DESCRIPTIONS,
  KPI_SUBTYPES,
} from './metric-definitions';
import { MetricsService } from './metrics.service';
import { TIMEZONE_PROBLEM, ZONE_CONFLICT } from './query/metric-query';

const list = (descriptions: Record<string, string>) =>
  Object.entries(descriptions)
    .map(([subtype, text]) => `- \`${subtype}\`: ${text}`)
    .join('\n');

const PERIOD =
  'The period is `from <= t <= to`. Sessions are session_start events in the period; what a session did later (pages viewed, conversion, completion, answers) counts at its start. Events of a session whose session_start has not arrived yet count once it does.';

@ApiTags('Metrics')
@Controller({ path: 'funnels/:funnelId/metrics', version: '1' })
@ApiParam({ name: 'funnelId', format: 'uuid', description: 'A funnel of the key’s company' })
@ApiErrorResponse(
  400,
  'funnelId not a UUID; missing or invalid from/to/offset/timezone; both offset and timezone; from not before to; period over 3660 days; unknown subtype; abTest where unsupported. `error` is the first problem, `details` lists them all.',
  'from must be before to',
  ZONE_CONFLICT,
  TIMEZONE_PROBLEM,
)
@ApiNotFoundResponse({ description: 'Funnel not found (or it belongs to another company)' })
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get('charts/:subtype')
  @RequirePermissions('metrics:read')
  @ApiOperation({ summary: 'Chart data', description: `${PERIOD}\n\n${list(CHART_DESCRIPTIONS)}` })
  @ApiParam({ name: 'subtype', enum: CHART_SUBTYPES })
  @ApiOkResponse({ type: ChartResponse })
  async chart(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('subtype') subtype: string,
    @Query() query: ChartQueryDto,
  ): Promise<ChartResponse> {
    return { data: await this.metrics.chart(companyId, funnelId, subtype, query) };
  }

  @Get('kpis/:subtype')
  @RequirePermissions('metrics:read')
  @ApiOperation({
    summary: 'KPI',
    description: `${PERIOD} \`type\` is the camelCase of the subtype (e.g. kpiConversionRate); rates are percentages 0–100 with \`count\`, the denominator; durations are seconds. Figures are rounded to 2 decimals. abTest is refused.\n\n${list(KPI_DESCRIPTIONS)}`,
  })
  @ApiParam({ name: 'subtype', enum: KPI_SUBTYPES })
  @ApiOkResponse({ type: KpiResponse })
  async kpi(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('subtype') subtype: string,
    @Query() query: MetricsQueryDto,
  ): Promise<KpiResponse> {
    return { data: await this.metrics.kpi(companyId, funnelId, subtype, query) };
  }

  @Get('insights/:insightId')
  @RequirePermissions('metrics:read')
  @ApiOperation({
    summary: 'Answers to a question',
    description: `${PERIOD}\n\n${INSIGHT_DESCRIPTION} abTest is refused.`,
  })
  @ApiParam({ name: 'insightId', description: 'A question id: question_<n>', example: 'question_1' })
  @ApiOkResponse({ type: InsightResponse })
  @ApiNotFoundResponse({ description: 'Funnel not found, or no answer to this question was ever received' })
  async insight(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('insightId') insightId: string,
    @Query() query: MetricsQueryDto,
  ): Promise<InsightResponse> {
    return { data: await this.metrics.insight(companyId, funnelId, insightId, query) };
  }
}
