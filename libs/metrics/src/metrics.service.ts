import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError, ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { ChartsService } from './charts.service';
import type { ChartDataPoint, InsightResult, KpiResult } from './dto/metrics.dto';
import { MetricQuestion } from './entities/metric-question.entity';
import { SESSION_DIMENSIONS } from './events/session-state';
import { KpisService } from './kpis.service';
import { CHART_SUBTYPES, ChartSubtype, KPI_SUBTYPES, KpiSubtype } from './metric-definitions';
import { assertFunnelId } from './query/funnel-id';
import { MetricQuery, parseMetricQuery } from './query/metric-query';
import { RollupReader } from './rollups/rollup-reader';

const QUESTION_ID = /^question_\d{1,9}$/;

/** What REST and MCP callers pass (strings as received; MetricsService validates them). */
export type ChartQuery = MetricQuery & {
  from?: string;
  to?: string;
  offset?: string;
  timezone?: string;
  abTest?: string;
};
export type KpiQuery = MetricQuery & { from?: string; to?: string; offset?: string; timezone?: string };

/**
 * Charts, KPIs and insights of one funnel of the caller's company. Every parameter is validated
 * here, so the REST routes and the MCP tools answer with the same errors.
 */
@Injectable()
export class MetricsService {
  constructor(
    private readonly funnels: FunnelsService,
    private readonly charts: ChartsService,
    private readonly kpis: KpisService,
    private readonly rollups: RollupReader,
    @InjectRepository(MetricQuestion) private readonly questions: Repository<MetricQuestion>,
  ) {}

  async chart(
    companyId: string,
    funnelId: string,
    subtype: string,
    query: ChartQuery,
  ): Promise<ChartDataPoint[]> {
    assertFunnelId(funnelId);
    if (!CHART_SUBTYPES.includes(subtype as ChartSubtype)) {
      throw new ValidationError(`Unknown chart subtype: ${subtype}`, [
        `subtype must be one of ${CHART_SUBTYPES.join(', ')}`,
      ]);
    }
    const { window, abTest } = parseMetricQuery(query, {
      abTest: subtype === 'chart_page_to_page_conversion_rate',
    });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    const pages = await this.funnels.pagesOf(funnel.id);
    return this.charts.build(subtype as ChartSubtype, { funnelId: funnel.id, pages, window, abTest });
  }

  async kpi(companyId: string, funnelId: string, subtype: string, query: KpiQuery): Promise<KpiResult> {
    assertFunnelId(funnelId);
    if (!KPI_SUBTYPES.includes(subtype as KpiSubtype)) {
      throw new ValidationError(`Unknown KPI subtype: ${subtype}`, [
        `subtype must be one of ${KPI_SUBTYPES.join(', ')}`,
      ]);
    }
    const { window } = parseMetricQuery(query, { abTest: false });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    return this.kpis.build(subtype as KpiSubtype, funnel.id, window);
  }

  /** Each session's latest answer to the question, over sessions started in the period. */
  async insight(
    companyId: string,
    funnelId: string,
    insightId: string,
    query: KpiQuery,
  ): Promise<InsightResult> {
    assertFunnelId(funnelId);
    if (!QUESTION_ID.test(insightId)) {
      throw new ValidationError('insightId must be a question id: question_<n>');
    }
    const { window } = parseMetricQuery(query, { abTest: false });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    const question = await this.questions.findOneBy({ funnelId: funnel.id, questionId: insightId });
    if (!question) throw new NotFoundError(`Question ${insightId} not found`);
    const single = SESSION_DIMENSIONS.answer(insightId);
    const grouped = SESSION_DIMENSIONS.answerGroup(insightId);
    const sums = await this.rollups.sessions(funnel.id, window, [single, grouped]);
    const toRecord = (dimension: string) =>
      Object.fromEntries(
        [...(sums.get(dimension) ?? new Map<string, { sessions: number }>()).entries()]
          .map(([answer, c]) => [answer, c.sessions] as const)
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
      );
    return { title: question.title, answers: toRecord(single), groupedAnswers: toRecord(grouped) };
  }
}
