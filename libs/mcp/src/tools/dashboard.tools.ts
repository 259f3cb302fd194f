import { RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { z } from 'zod';
import { ValidationError } from '@app/core';
import {
  type ChartDataPoint,
  FunnelDescriptionsService,
  type KpiResult,
  MetricsService,
  PERIOD_PRESET_NAMES,
  PERIOD_PRESETS,
  presetPeriod,
  type PeriodPreset,
} from '@app/metrics';
import { DASHBOARD_CHARTS, DASHBOARD_KPIS } from '../apps/funnel-dashboard.figures';
import { FUNNEL_DASHBOARD_URI, registerFunnelDashboardResource } from '../apps/funnel-dashboard.resource';
import { FUNNEL_DASHBOARD } from './output-schemas';
import { READS } from './tool-annotations';
import type { ToolContext } from './tool-context';
import { toolResult } from './tool-result';
import { funnelIdInput } from './funnel-id.input';

const DEFAULT_PRESET: PeriodPreset = 'last_7_days';

interface DashboardArgs {
  funnelId: string;
  period?: PeriodPreset;
  from?: string;
  to?: string;
  timezone?: string;
  offset?: string;
}

/**
 * `show_funnel_dashboard`: a funnel's KPIs and main charts over a period in one answer, drawn by
 * hosts that render MCP Apps (the tool names its ui:// resource) and complete as JSON for the rest.
 * It reads metrics only: the permission it needs is `metrics:read`, as the REST metric routes'.
 */
export function registerDashboardTools(
  context: ToolContext,
  metrics: MetricsService,
  funnels: FunnelDescriptionsService,
): void {
  const { server, companyId } = context;
  registerFunnelDashboardResource(server);
  server.registerTool(
    'show_funnel_dashboard',
    {
      title: 'Funnel dashboard',
      description:
        "Shows a funnel's dashboard over a period: the KPIs (sessions, new contacts, conversion and " +
        'completion rates, average time on page, time to completion), page-to-page conversion, contacts ' +
        'over time, devices and the top UTM sources, each as get_kpi_metrics and get_chart_metrics ' +
        'answer it. The period is a preset (today and the days before it, in the time zone; default ' +
        `${DEFAULT_PRESET}) or from and to. Hosts that render MCP Apps draw it as charts.`,
      inputSchema: {
        funnelId: funnelIdInput,
        period: z
          .enum(PERIOD_PRESET_NAMES)
          .optional()
          .describe(
            `A named period ending today in the time zone: ${Object.entries(PERIOD_PRESETS)
              .map(([name, days]) => `${name} (${days} day${days > 1 ? 's' : ''})`)
              .join(', ')}. Not with from/to; default ${DEFAULT_PRESET}`,
          ),
        from: z.string().optional().describe('Start of the period, ISO 8601, with to; instead of period'),
        to: z
          .string()
          .optional()
          .describe('End of the period, ISO 8601, with from; a date alone means the end of that day'),
        timezone: z
          .string()
          .optional()
          .describe(
            'Time zone by IANA name (e.g. Europe/Berlin): days follow it. Not with offset. Default UTC',
          ),
        offset: z
          .string()
          .optional()
          .describe('Alternative to timezone: JavaScript getTimezoneOffset() minutes ("-120" is UTC+2)'),
      },
      outputSchema: FUNNEL_DASHBOARD,
      annotations: READS,
      // MCP Apps: the nested key is the current one, the flat key what hosts of the first drafts read.
      _meta: { ui: { resourceUri: FUNNEL_DASHBOARD_URI }, [RESOURCE_URI_META_KEY]: FUNNEL_DASHBOARD_URI },
    },
    (args: DashboardArgs) => toolResult(() => dashboard(companyId, args, metrics, funnels)),
  );
}

async function dashboard(
  companyId: string,
  { funnelId, period, from, to, timezone, offset }: DashboardArgs,
  metrics: MetricsService,
  funnels: FunnelDescriptionsService,
) {
  const zone = { ...(timezone !== undefined && { timezone }), ...(offset !== undefined && { offset }) };
  const query = { ...zone, ...dates(period, from, to, zone) };
  const funnel = await funnels.describeForCompany(companyId, funnelId);
  // One read after the other: a dashboard holds one pooled connection at a time, as any request.
  const kpis: Record<string, KpiResult> = {};
  for (const subtype of DASHBOARD_KPIS)
    kpis[subtype] = await metrics.kpi(companyId, funnelId, subtype, query);
  const charts: Record<string, ChartDataPoint[]> = {};
  for (const subtype of DASHBOARD_CHARTS)
    charts[subtype] = await metrics.chart(companyId, funnelId, subtype, query);
  return {
    funnel: { id: funnel.id, name: funnel.name },
    period: { ...(from === undefined && { preset: period ?? DEFAULT_PRESET }), ...query },
    kpis,
    charts,
  };
}

/** from and to as asked, or the preset's local dates today (the metric reads check them). */
function dates(
  period: PeriodPreset | undefined,
  from: string | undefined,
  to: string | undefined,
  zone: { timezone?: string; offset?: string },
): { from: string; to: string } {
  if (from === undefined && to === undefined) return presetPeriod(period ?? DEFAULT_PRESET, zone, Date.now());
  if (period !== undefined)
    throw new ValidationError('period and from/to are alternatives: give one of them');
  if (from === undefined || to === undefined) throw new ValidationError('from and to go together: give both');
  return { from, to };
}
