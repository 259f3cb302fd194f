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
import { ChartDocs, InsightDocs, KpiDocs } from './metrics.docs';
import { MetricsService } from './metrics.service';

@ApiTags('Metrics')
@Controller({ path: 'funnels/:funnelId/metrics', version: '1' })
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

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
}
