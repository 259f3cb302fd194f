import type { MetricWindow } from '../query/metric-query';
import { countRange } from '../query/metric-query';
import type { SessionCounts } from '../rollups/counts';
import { MetricSources, percent, seconds } from './metric-sources';

/** A KPI's figure; rates carry their denominator as `count`. */
export interface KpiValue {
  value: number;
  count?: number;
}

/** Page views that reported a time on page, and its sum. */
export interface TimedViews {
  timed: number;
  totalMs: number;
}

/**
 * How a KPI is computed. What it reads decides what it takes: a KPI over sessions (or their page
 * views) is a function of their counters, so it can be narrowed to the sessions a filter matches
 * and broken down by a session attribute, each key's value computed as the whole's; a KPI over
 * contacts or messages knows no sessions.
 */
export type KpiDefinition = { description: string } & (
  | { reads: 'sessions'; of(c: SessionCounts): KpiValue }
  | { reads: 'pageViews'; of(c: TimedViews): KpiValue }
  | {
      reads: 'contacts' | 'messages';
      build(funnelId: string, window: MetricWindow, sources: MetricSources): Promise<KpiValue>;
    }
);

/**
 * The KPIs of product decisions §6, each declared once: its subtype, description and how it is
 * computed. Rates are percentages 0–100 and carry their denominator; durations are seconds.
 */
export const KPIS = {
  kpi_total_sessions: {
    description: 'Sessions (session_start events) in the period.',
    reads: 'sessions',
    of: (c) => ({ value: c.sessions }),
  },
  kpi_new_contacts: {
    description: 'Contacts whose meta.ps_converted_at falls in the period.',
    reads: 'contacts',
    async build(funnelId, window, { crm }) {
      return { value: await crm.converted(funnelId, countRange(window)) };
    },
  },
  kpi_conversion_rate: {
    description:
      'Sessions started in the period that have a `conversion` ÷ those sessions × 100 (percent, 2 decimals); count = sessions.',
    reads: 'sessions',
    of: (c) => ({ value: percent(c.conversions, c.sessions), count: c.sessions }),
  },
  kpi_completion_rate: {
    description:
      'Sessions started in the period that have a `completion` ÷ those sessions × 100 (percent, 2 decimals); count = sessions.',
    reads: 'sessions',
    of: (c) => ({ value: percent(c.completions, c.sessions), count: c.sessions }),
  },
  kpi_average_time_on_page: {
    description:
      'Mean timeOnPageMs ÷ 1000 (seconds, 2 decimals) over the page views in the period that reported it; count = those page views.',
    reads: 'pageViews',
    of: (c) => ({ value: seconds(c.totalMs, c.timed), count: c.timed }),
  },
  kpi_time_to_completion: {
    description:
      'Mean seconds (2 decimals) from session_start to the first completion, over sessions started in the period that completed; count = those sessions.',
    reads: 'sessions',
    of: (c) => ({ value: seconds(c.completionMs, c.completions), count: c.completions }),
  },
  kpi_messages_sent: {
    description: 'Contact messages sent (created) in the period.',
    reads: 'messages',
    async build(funnelId, window, { crm }) {
      return { value: await crm.messagesSent(funnelId, countRange(window)) };
    },
  },
  kpi_messages_delivery_rate: {
    description:
      'Messages sent in the period with a message_delivered (or message_opened) event ÷ messages sent in the period × 100; count = messages sent.',
    reads: 'messages',
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
    reads: 'messages',
    async build(funnelId, window, { rollups }) {
      const { delivered, opened } = await rollups.messages(funnelId, window);
      return { value: percent(opened, delivered), count: delivered };
    },
  },
} satisfies Record<string, KpiDefinition>;
