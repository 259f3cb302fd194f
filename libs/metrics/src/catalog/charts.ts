import type { ChartDataPoint } from '../dto/metrics.dto';
import { DEVICES } from '../events/event-types';
import { SESSION_DIMENSIONS } from '../events/session-definitions';
import { countRange } from '../query/metric-query';
import { calendarKeys, slotLabel } from '../time/local-time';
import { offsetsByMinute } from '../time/zone-sql';
import { ChartContext, MetricSources, ratio, round, sessionsBy, sessionsByAttribute } from './metric-sources';

const DAILY_UP_TO_MS = 93 * 86_400_000;
const TOP_SOURCES = 10;

const byValueThenKey = (a: ChartDataPoint, b: ChartDataPoint) =>
  b.value - a.value || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export interface ChartDefinition {
  /** What Swagger and the MCP tool say the chart shows. */
  description: string;
  /**
   * What it counts: sessions, or events at their own time (both take the session filters, which
   * narrow the sessions or the events counted), or contacts (which know no sessions).
   */
  counts: 'sessions' | 'events' | 'contacts';
  /** Whether the chart takes the abTest filter (every other chart refuses it). */
  abTest?: true;
  /**
   * Points keyed by a local day or month: a comparison pairs them by position (the first day of
   * the period with the first day of the previous one), others by key.
   */
  series?: true;
  /** Only the first `top` points are answered (after a comparison has read every key). */
  top?: number;
  build(ctx: ChartContext, sources: MetricSources): Promise<ChartDataPoint[]>;
}

/**
 * The charts of product decisions §6, each declared once: its subtype, description and how it is
 * computed. The subtype list, Swagger, the MCP tool and the service all read this table, so a
 * chart over an existing dimension is one entry here (and its test).
 */
export const CHARTS = {
  chart_page_to_page_conversion_rate: {
    description:
      'One point per funnel page in funnel order: key = slug, name = title, value = sessions (started in the period) that viewed the page, relativeValue = value ÷ previous page value (first page 1; 0 when the previous is 0). `abTest` filters sessions by their abVariant (all = no filter).',
    counts: 'sessions',
    abTest: true,
    async build({ funnelId, pages, window, abTest, filter }, sources) {
      const dimension =
        !abTest || abTest === 'all' ? SESSION_DIMENSIONS.page : SESSION_DIMENSIONS.pageOf(abTest);
      const sums = await sessionsBy(sources, funnelId, window, dimension, filter);
      let previous = 0;
      return pages.map((page, index) => {
        const value = sums.get(page.slug)?.sessions ?? 0;
        const relativeValue = index === 0 ? 1 : ratio(value, previous);
        previous = value;
        return { key: page.slug, name: page.title, value, relativeValue };
      });
    },
  },
  chart_activity_by_daytime: {
    description:
      'Always 168 points, Monday 00:00 first: key `D-HH` (D = ISO weekday 1 Monday … 7 Sunday, HH = local hour 00–23), name like `Monday 09:00`, value = page views in that local weekday-hour.',
    counts: 'events',
    async build({ funnelId, window, filter }, { rollups }) {
      const slots = await rollups.activity(funnelId, window, 'activity', filter);
      return slots.map((value, slot) => ({ ...slotLabel(slot), value }));
    },
  },
  chart_contacts_over_time: {
    description:
      'Daily points (key `YYYY-MM-DD`) when the period is at most 93 days, else monthly (`YYYY-MM`), in local time; value = contacts whose meta.ps_converted_at falls in the slot and the period. Every slot is present, zeros included.',
    counts: 'contacts',
    series: true,
    async build({ funnelId, window }, { crm }) {
      const unit = window.to - window.from <= DAILY_UP_TO_MS ? 'day' : 'month';
      const counts = await crm.convertedPerLocalKey(funnelId, countRange(window), {
        offsets: offsetsByMinute(window.zone.periods(window.from, window.to)),
        format: unit === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM',
      });
      return calendarKeys(window.from, window.to, window.zone, unit).map((key) => ({
        key,
        value: counts.get(key) ?? 0,
      }));
    },
  },
  chart_visitor_devices: {
    description:
      'Always mobile, desktop, tablet, other (in that order): value = sessions started in the period on that device, relativeValue = value ÷ all sessions (0 when there are none).',
    counts: 'sessions',
    async build({ funnelId, window, filter }, sources) {
      const sums = await sessionsByAttribute(sources, funnelId, window, 'device', filter);
      const total = [...sums.values()].reduce((sum, c) => sum + c.sessions, 0);
      return DEVICES.map((device) => {
        const value = sums.get(device)?.sessions ?? 0;
        return { key: device, value, relativeValue: ratio(value, total) };
      });
    },
  },
  chart_top_utm_sources: {
    description:
      'The 10 utm.source values with the most sessions, descending (ties by key): value = sessions, relativeValue = value ÷ sessions that have a source.',
    counts: 'sessions',
    top: TOP_SOURCES,
    async build({ funnelId, window, filter }, sources) {
      const sums = await sessionsByAttribute(sources, funnelId, window, 'utmSource', filter);
      const withSource = [...sums.values()].reduce((sum, c) => sum + c.sessions, 0);
      return [...sums.entries()]
        .map(([key, c]) => ({ key, value: c.sessions, relativeValue: ratio(c.sessions, withSource) }))
        .sort(byValueThenKey);
    },
  },
  chart_time_on_page: {
    description:
      'One point per funnel page in funnel order: key = slug, name = title, value = mean timeOnPageMs ÷ 1000 (seconds, 2 decimals) over the page views in the period that reported it; 0 when none.',
    counts: 'events',
    async build({ funnelId, pages, window, filter }, { rollups }) {
      const sums = await rollups.events(funnelId, window, 'page', filter);
      return pages.map((page) => {
        const c = sums.get(page.slug);
        return {
          key: page.slug,
          name: page.title,
          value: c?.timed ? round(c.totalMs / c.timed / 1000, 2) : 0,
        };
      });
    },
  },
  chart_button_clicks: {
    description:
      'One point per button clicked in the period, most clicks first (ties by key): key = buttonId, name = latest buttonLabel in the period (the buttonId when none), value = clicks.',
    counts: 'events',
    async build({ funnelId, window, filter }, { rollups }) {
      const sums = await rollups.events(funnelId, window, 'button', filter);
      return [...sums.entries()]
        .map(([key, c]) => ({ key, name: c.label ?? key, value: c.events }))
        .sort(byValueThenKey);
    },
  },
} satisfies Record<string, ChartDefinition>;
