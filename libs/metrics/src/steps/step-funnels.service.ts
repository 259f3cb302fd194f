import { Injectable } from '@nestjs/common';
import { FunnelsService } from '@app/workspaces';
import { ratio, round } from '../catalog/metric-sources';
import { assertFunnelId } from '../query/funnel-id';
import { parseMetricQuery } from '../query/metric-query';
import type { KpiQuery } from '../metrics.service';
import { assertNoProblems, parseSteps, parseWithin } from './funnel-steps';
import { StepFunnelReader } from './step-funnel-reader';

export type StepFunnelQuery = Omit<KpiQuery, 'breakdown' | 'compare'> & { steps?: unknown; within?: unknown };

export interface StepFunnelPoint {
  step: string;
  value: number;
  relativeValue: number;
  medianSecondsFromPrevious?: number;
}

/**
 * Step funnels of one funnel of the caller's company: of the sessions that started in the period
 * (and match the filters), how many reached each step in order within `within` of their start.
 * Every parameter is validated here, for REST and MCP alike.
 */
@Injectable()
export class StepFunnelsService {
  constructor(
    private readonly funnels: FunnelsService,
    private readonly reader: StepFunnelReader,
  ) {}

  async funnel(companyId: string, funnelId: string, query: StepFunnelQuery): Promise<StepFunnelPoint[]> {
    assertFunnelId(funnelId);
    const problems: string[] = [];
    const steps = parseSteps(query.steps, problems);
    const within = parseWithin(query.within, problems);
    assertNoProblems(problems);
    const { window, filter } = parseMetricQuery(query, {
      figure: 'step funnels',
      abTest: false,
      sessions: true,
    });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    const counts = await this.reader.steps(
      funnel.id,
      window,
      steps,
      within ?? window.to + 1 - window.from,
      filter,
    );
    return counts.map((c, i) => ({
      step: steps[i].name,
      value: c.sessions,
      relativeValue: i === 0 ? 1 : ratio(c.sessions, counts[i - 1].sessions),
      ...(i === 0
        ? {}
        : { medianSecondsFromPrevious: c.medianSeconds === null ? 0 : round(c.medianSeconds, 2) }),
    }));
  }
}
