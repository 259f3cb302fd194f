import {
  CHART_SUBTYPES,
  FILTERED_CHARTS,
  FILTERED_KPIS,
  FINEST_SEGMENT_GRAIN,
  KPI_SUBTYPES,
} from '@app/metrics';
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

/** Every chart (and the page-to-page chart by A/B variant), KPI and insight over a window `query`. */
export function figureProbes(funnelId: string, query: string): { name: string; path: string }[] {
  const metrics = `/v1/funnels/${funnelId}/metrics`;
  return [
    ...CHART_SUBTYPES.map((s) => ({ name: s, path: `${metrics}/charts/${s}?${query}` })),
    {
      name: 'chart_page_to_page (abTest=variant)',
      path: `${metrics}/charts/chart_page_to_page_conversion_rate?${query}&abTest=variant`,
    },
    ...KPI_SUBTYPES.map((s) => ({ name: s, path: `${metrics}/kpis/${s}?${query}` })),
    ...[1, 2, 3].map((n) => ({
      name: `insight question_${n}`,
      path: `${metrics}/insights/question_${n}?${query}`,
    })),
  ];
}

const DAY = 86_400_000;
// Half a bucket of the finest grain: the longest edge read from raw rows.

/** The benches' four windows over the `days` days to `now`, as query strings by name. */
export function benchWindows(now: number, days: number): Record<string, string> {
  const local = (ms: number, offset: number) => new Date(ms - offset * 60_000).toISOString().slice(0, 10);
  const withEdges = (edge: number) =>
    `from=${new Date(now - days * DAY + edge).toISOString()}&to=${new Date(now - edge - 1).toISOString()}&offset=-330`;
  return {
    // A dashboard: the last whole local days at UTC+2 (date-only from/to).
    'days+2': `from=${local(now - days * DAY, -120)}&to=${local(now - DAY, -120)}&offset=-120`,
    // A rolling window to the millisecond at UTC+5:30: its edges (47.7 s and 55.7 s) are read as
    // whole minutes less 12.3 s and 4.3 s of raw sessions, page views and clicks.
    'roll+5:30': `from=${new Date(now - days * DAY + 12_345).toISOString()}&to=${new Date(now - 4_321).toISOString()}&offset=-330`,
    // The worst case for raw rows: both edges exactly half a bucket of the finest grain, a
    // minute, read raw...
    'half+5:30': withEdges((FINEST_SEGMENT_GRAIN * 1000) / 2),
    // ...and edges five seconds past a minute boundary.
    'five+5:30': withEdges(5_000),
  };
}
