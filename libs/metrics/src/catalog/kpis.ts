import type { MetricWindow } from '../query/metric-query';
import { countRange } from '../query/metric-query';
import { MetricSources, percent, seconds, sessionTotals } from './metric-sources';

/** A KPI's figure; rates carry their denominator as `count`. */
export interface KpiValue {
  value: number;
  count?: number;
}

export interface KpiDefinition {
  /** What Swagger and the MCP tool say the KPI is. */
  description: string;
  build(funnelId: string, window: MetricWindow, sources: MetricSources): Promise<KpiValue>;
}

/**
 * The KPIs of product decisions §6, each declared once: its subtype, description and how it is
 * computed. Rates are percentages 0–100 and carry their denominator; durations are seconds.
 */
export const KPIS = {
  kpi_total_sessions: {
    description: 'Sessions (session_start events) in the period.',
    async build(funnelId, window, sources) {
      return { value: (await sessionTotals(sources, funnelId, window)).sessions };
    },
  },
  kpi_new_contacts: {
    description: 'Contacts whose meta.ps_converted_at falls in the period.',
    async build(funnelId, window, { crm }) {
      return { value: await crm.converted(funnelId, countRange(window)) };
    },
  },
  kpi_conversion_rate: {
    description:
      'Sessions started in the period that have a `conversion` ÷ those sessions × 100 (percent, 2 decimals); count = sessions.',
    async build(funnelId, window, sources) {
      const all = await sessionTotals(sources, funnelId, window);
      return { value: percent(all.conversions, all.sessions), count: all.sessions };
    },
  },
  kpi_completion_rate: {
    description:
      'Sessions started in the period that have a `completion` ÷ those sessions × 100 (percent, 2 decimals); count = sessions.',
    async build(funnelId, window, sources) {
      const all = await sessionTotals(sources, funnelId, window);
      return { value: percent(all.completions, all.sessions), count: all.sessions };
    },
  },
  kpi_average_time_on_page: {
    description:
      'Mean timeOnPageMs ÷ 1000 (seconds, 2 decimals) over the page views in the period that reported it; count = those page views.',
    async build(funnelId, window, { rollups }) {
      let timed = 0;
      let totalMs = 0;
      for (const c of (await rollups.events(funnelId, window, 'page')).values()) {
        timed += c.timed;
        totalMs += c.totalMs;
      }
      return { value: seconds(totalMs, timed), count: timed };
    },
  },
  kpi_time_to_completion: {
    description:
      'Mean seconds (2 decimals) from session_start to the first completion, over sessions started in the period that completed; count = those sessions.',
    async build(funnelId, window, sources) {
      const all = await sessionTotals(sources, funnelId, window);
      return { value: seconds(all.completionMs, all.completions), count: all.completions };
    },
  },
  kpi_messages_sent: {
    description: 'Contact messages sent (created) in the period.',
    async build(funnelId, window, { crm }) {
      return { value: await crm.messagesSent(funnelId, countRange(window)) };
    },
  },
  kpi_messages_delivery_rate: {
    description:
      'Messages sent in the period with a message_delivered (or message_opened) event ÷ messages sent in the period × 100; count = messages sent.',
    async build(funnelId, window, { crm, rollups }) {
      const [sent, { delivered }] = await Promise.all([
        crm.messagesSent(funnelId, countRange(window)),
        rollups.messages(funnelId, window),
      ]);
      return { value: percent(delivered, sent), count: sent };
    },
  },
  kpi_messages_open_rate: {
    description:
      'Messages sent in the period with a message_opened event ÷ those delivered × 100; count = messages delivered.',
    async build(funnelId, window, { rollups }) {
      const { delivered, opened } = await rollups.messages(funnelId, window);
      return { value: percent(opened, delivered), count: delivered };
    },
  },
} satisfies Record<string, KpiDefinition>;
