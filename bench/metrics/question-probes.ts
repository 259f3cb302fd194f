import { FILTERED_CHARTS, FILTERED_KPIS, CHART_SUBTYPES, KPI_SUBTYPES } from '@app/metrics';
import { BENCH_PAGES } from './bench-env';

// The demo traffic's commonest filter values (demo-traffic.ts): a device and two sources.
const FILTER = 'device=mobile&utmSource=google&utmSource=facebook';

/**
 * The figures' questions, each over a window `query`: every chart, KPI and insight that takes the
 * filters narrowed by them, every KPI that takes a breakdown broken down by source, every chart and
 * KPI compared with the previous period, and a step funnel over the bench funnel's pages (as asked,
 * and with exact=true).
 */
export function questionProbes(
  funnelId: string,
  query: string,
): { name: string; path: string; reference?: boolean }[] {
  const metrics = `/v1/funnels/${funnelId}/metrics`;
  const stepFunnel = `${metrics}/funnel?${query}&steps=page:${BENCH_PAGES[0].slug},page:${BENCH_PAGES[2].slug},conversion&within=P7D`;
  return [
    ...FILTERED_CHARTS.map((s) => ({
      name: `${s} filtered`,
      path: `${metrics}/charts/${s}?${query}&${FILTER}`,
    })),
    ...FILTERED_KPIS.map((s) => ({ name: `${s} filtered`, path: `${metrics}/kpis/${s}?${query}&${FILTER}` })),
    { name: 'insight question_1 filtered', path: `${metrics}/insights/question_1?${query}&${FILTER}` },
    ...FILTERED_KPIS.map((s) => ({
      name: `${s} by utmSource`,
      path: `${metrics}/kpis/${s}?${query}&breakdown=utmSource`,
    })),
    ...CHART_SUBTYPES.map((s) => ({
      name: `${s} compared`,
      path: `${metrics}/charts/${s}?${query}&compare=previous_period`,
    })),
    ...KPI_SUBTYPES.map((s) => ({
      name: `${s} compared`,
      path: `${metrics}/kpis/${s}?${query}&compare=previous_period`,
    })),
    { name: 'step funnel (3 steps, P7D)', path: stepFunnel },
    // The same read of every session (exact=true): linear in the period's sessions.
    { name: 'step funnel exact (3 steps, P7D)', path: `${stepFunnel}&exact=true`, reference: true },
  ];
}
