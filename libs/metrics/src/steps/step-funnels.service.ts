import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { type EnvironmentVariables, ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { ratio, round } from '../catalog/metric-sources';
import type { StepFunnelResponse } from '../dto/step-funnel.dto';
import { assertFunnelId } from '../query/funnel-id';
import { parseMetricQuery } from '../query/metric-query';
import { type KpiQuery, MetricsService } from '../metrics.service';
import { parseExact, parseSteps, parseWithin } from './funnel-steps';
import { StepFunnelReader } from './step-funnel-reader';

type StepFunnelQuery = Omit<KpiQuery, 'breakdown' | 'compare'> & {
  steps?: unknown;
  within?: unknown;
  exact?: unknown;
};

/**
 * Step funnels of one funnel of the caller's company: of the sessions that started in the period
 * (and match the filters), how many reached each step in order within `within` of their start.
 * Every parameter is validated here, for REST and MCP alike. Over more sessions than
 * STEP_FUNNEL_SAMPLE_SESSIONS the values are estimated from a uniform sample of the sessions
 * (StepFunnelReader): each step's share of the sessions read, times the period's sessions counted
 * exactly (kpi_total_sessions' count), so the size of the sample, which varies, does not scale
 * them; `meta` says so. `exact` reads them all.
 */
@Injectable()
export class StepFunnelsService {
  constructor(
    private readonly funnels: FunnelsService,
    private readonly reader: StepFunnelReader,
    private readonly metrics: MetricsService,
    private readonly config: ConfigService<EnvironmentVariables, true>,
  ) {}

  async funnel(companyId: string, funnelId: string, query: StepFunnelQuery): Promise<StepFunnelResponse> {
    assertFunnelId(funnelId);
    const problems: string[] = [];
    const steps = parseSteps(query.steps, problems);
    const within = parseWithin(query.within, problems);
    const exact = parseExact(query.exact, problems);
    if (problems.length) throw new ValidationError(problems[0], problems);
    const { window, filter } = parseMetricQuery(query, {
      figure: 'step funnels',
      abTest: false,
      sessions: true,
    });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    const sampleSessions = this.config.get('STEP_FUNNEL_SAMPLE_SESSIONS', { infer: true });
    const withinMs = within ?? window.to + 1 - window.from;
    const read = await this.reader.steps(funnel.id, window, steps, withinMs, filter, {
      exact: exact || sampleSessions === 0,
      sampleSessions,
    });
    const { counts, exact: complete, sessions: sampledSessions } = read;
    const sessions = complete
      ? sampledSessions
      : await this.metrics.sessionsStarted(funnel.id, window, filter);
    const scale = complete ? 1 : sampledSessions ? sessions / sampledSessions : 0;
    const data = counts.map((c, i) => ({
      step: steps[i].name,
      value: Math.round(c.sessions * scale),
      relativeValue: i === 0 ? 1 : ratio(c.sessions, counts[i - 1].sessions),
      ...(i === 0
        ? {}
        : { medianSecondsFromPrevious: c.medianSeconds === null ? 0 : round(c.medianSeconds, 2) }),
    }));
    const sampleRate = complete ? 1 : sessions ? round(sampledSessions / sessions, 4) : 0;
    return { data, meta: { exact: complete, sampleRate, sessions, sampledSessions } };
  }
}
