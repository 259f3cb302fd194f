import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError, ValidationError } from '@app/core';
import { ContactCountsReader } from '@app/contacts';
import { FunnelsService } from '@app/workspaces';
import { ChartDefinition, CHARTS } from './catalog/charts';
import { kpiBreakdown, kpiCountsSessions, kpiFigure } from './catalog/kpi-figures';
import { KpiDefinition, KPIS } from './catalog/kpis';
import { type MetricSources, sessionTotals } from './catalog/metric-sources';
import type { ChartDataPoint, InsightResult, KpiResult } from './dto/metrics.dto';
import { MetricQuestion } from './entities/metric-question.entity';
import { QUESTION_ID } from './events/event-readers';
import { SESSION_DIMENSIONS } from './events/session-definitions';
import { CHART_SUBTYPES, ChartSubtype, KPI_SUBTYPES, KpiSubtype, kpiType } from './metric-definitions';
import { assertFunnelId } from './query/funnel-id';
import {
  MetricQuery,
  MetricWindow,
  parseMetricQuery,
  previousWindow,
  SessionFilter,
} from './query/metric-query';
import { RollupReader } from './rollups/rollup-reader';

/** What REST and MCP callers pass (strings as received; MetricsService validates them). */
export type KpiQuery = MetricQuery & {
  from?: string;
  to?: string;
  offset?: string;
  timezone?: string;
  device?: string | string[];
  utmSource?: string | string[];
  utmMedium?: string | string[];
  utmCampaign?: string | string[];
  abVariant?: string | string[];
  breakdown?: string;
  compare?: string;
};
type ChartQuery = KpiQuery & { abTest?: string };

/**
 * Charts, KPIs and insights of one funnel of the caller's company. Every parameter is validated
 * here, so the REST routes and the MCP tools answer with the same errors.
 */
@Injectable()
export class MetricsService {
  private readonly sources: MetricSources;

  constructor(
    private readonly funnels: FunnelsService,
    private readonly rollups: RollupReader,
    crm: ContactCountsReader,
    @InjectRepository(MetricQuestion) private readonly questions: Repository<MetricQuestion>,
  ) {
    this.sources = { rollups, crm };
  }

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
    const chart: ChartDefinition = CHARTS[subtype as ChartSubtype];
    const { window, abTest, filter, compare } = parseMetricQuery(query, {
      figure: subtype,
      abTest: chart.abTest === true,
      sessions: chart.counts !== 'contacts',
      compare: true,
    });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    const pages = await this.funnels.pagesOf(funnel.id);
    const ctx = { funnelId: funnel.id, pages, window, abTest, filter };
    const [points, previous] = await Promise.all([
      chart.build(ctx, this.sources),
      compare ? chart.build({ ...ctx, window: previousWindow(window) }, this.sources) : undefined,
    ]);
    const compared = previous ? withPrevious(chart, points, previous) : points;
    return chart.top ? compared.slice(0, chart.top) : compared;
  }

  async kpi(companyId: string, funnelId: string, subtype: string, query: KpiQuery): Promise<KpiResult> {
    assertFunnelId(funnelId);
    if (!KPI_SUBTYPES.includes(subtype as KpiSubtype)) {
      throw new ValidationError(`Unknown KPI subtype: ${subtype}`, [
        `subtype must be one of ${KPI_SUBTYPES.join(', ')}`,
      ]);
    }
    const kpi: KpiDefinition = KPIS[subtype as KpiSubtype];
    const sessions = kpiCountsSessions(kpi);
    const { window, filter, breakdown, compare } = parseMetricQuery(query, {
      figure: subtype,
      abTest: false,
      sessions,
      breakdown: sessions,
      compare: true,
    });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    const [figure, previous, entries] = await Promise.all([
      kpiFigure(kpi, funnel.id, window, this.sources, filter),
      compare ? kpiFigure(kpi, funnel.id, previousWindow(window), this.sources, filter) : undefined,
      breakdown ? kpiBreakdown(kpi, funnel.id, window, this.sources, filter, breakdown) : undefined,
    ]);
    return {
      type: kpiType(subtype as KpiSubtype),
      ...figure,
      ...(previous ? { previousValue: previous.value } : {}),
      ...(entries ? { breakdown: entries } : {}),
    };
  }

  /** The sessions started in the window that match the filter (kpi_total_sessions' count, flat in volume). */
  async sessionsStarted(funnelId: string, window: MetricWindow, filter: SessionFilter): Promise<number> {
    return (await sessionTotals(this.sources, funnelId, window, filter)).sessions;
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
    const { window, filter } = parseMetricQuery(query, { figure: 'insights', abTest: false, sessions: true });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    const question = await this.questions.findOneBy({ funnelId: funnel.id, questionId: insightId });
    if (!question) throw new NotFoundError(`Question ${insightId} not found`);
    const single = SESSION_DIMENSIONS.answer(insightId);
    const grouped = SESSION_DIMENSIONS.answerGroup(insightId);
    const sums = await this.rollups.sessions(funnel.id, window, [single, grouped], filter);
    const toRecord = (dimension: string) =>
      Object.fromEntries(
        [...(sums.get(dimension) ?? new Map<string, { sessions: number }>()).entries()]
          .map(([answer, c]) => [answer, c.sessions] as const)
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
      );
    return { title: question.title, answers: toRecord(single), groupedAnswers: toRecord(grouped) };
  }
}

/**
 * The points with the value (and relativeValue) of the same point in the previous period: the
 * same key, or for a series of local days or months the same position; 0 where it has none.
 */
function withPrevious(
  chart: ChartDefinition,
  points: ChartDataPoint[],
  previous: ChartDataPoint[],
): ChartDataPoint[] {
  const byKey = new Map(previous.map((p) => [p.key, p]));
  return points.map((point, i) => {
    const before = chart.series ? previous[i] : byKey.get(point.key);
    return {
      ...point,
      previousValue: before?.value ?? 0,
      ...(point.relativeValue !== undefined ? { previousRelativeValue: before?.relativeValue ?? 0 } : {}),
    };
  });
}
