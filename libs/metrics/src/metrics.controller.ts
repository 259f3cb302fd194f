import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import {
  ChartQueryDto,
  ChartResponse,
  InsightResponse,
  KpiResponse,
  MetricsQueryDto,
} from './dto/metrics.dto';
import { StepFunnelQueryDto, StepFunnelResponse } from './dto/step-funnel.dto';
import { ChartDocs, InsightDocs, KpiDocs, StepFunnelDocs } from './metrics.docs';
import { MetricsService } from './metrics.service';
import { StepFunnelsService } from './steps/step-funnels.service';

@ApiTags('Metrics')
@Controller({ path: 'funnels/:funnelId/metrics', version: '1' })
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly stepFunnels: StepFunnelsService,
  ) {}

  @Get('charts/:subtype')
  @RequirePermissions('metrics:read')
  @ChartDocs()
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
  @KpiDocs()
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
  @InsightDocs()
  async insight(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('insightId') insightId: string,
    @Query() query: MetricsQueryDto,
  ): Promise<InsightResponse> {
    return { data: await this.metrics.insight(companyId, funnelId, insightId, query) };
  }

  @Get('funnel')
  @RequirePermissions('metrics:read')
  @StepFunnelDocs()
  async stepFunnel(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Query() query: StepFunnelQueryDto,
  ): Promise<StepFunnelResponse> {
    return this.stepFunnels.funnel(companyId, funnelId, query);
  }
}
