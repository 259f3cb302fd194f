import { Injectable } from '@nestjs/common';
import type { FunnelPage } from '@app/workspaces';
import type { ChartDataPoint } from './dto/metrics.dto';
import { DEVICES } from './events/event-types';
import { SESSION_DIMENSIONS } from './events/session-state';
import type { ChartSubtype } from './metric-definitions';
import type { AbTestFilter, MetricWindow } from './query/metric-query';
import { CrmCounts } from './rollups/crm-counts';
import { RollupReader } from './rollups/rollup-reader';
import { calendarKeys, slotLabel } from './time/local-time';

const DAILY_UP_TO_MS = 93 * 86_400_000;
const TOP_SOURCES = 10;

export const round = (value: number, decimals: number) => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
};
export const ratio = (part: number, whole: number) => (whole ? round(part / whole, 4) : 0);
const byValueThenKey = (a: ChartDataPoint, b: ChartDataPoint) =>
  b.value - a.value || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export interface ChartContext {
  funnelId: string;
  pages: FunnelPage[];
  window: MetricWindow;
  abTest?: AbTestFilter;
}

/** The seven charts of product decisions §6, from rollups and CRM counts. */
@Injectable()
export class ChartsService {
  constructor(
    private readonly rollups: RollupReader,
    private readonly crm: CrmCounts,
  ) {}

  build(subtype: ChartSubtype, ctx: ChartContext): Promise<ChartDataPoint[]> {
    switch (subtype) {
      case 'chart_page_to_page_conversion_rate':
        return this.pageToPage(ctx);
      case 'chart_activity_by_daytime':
        return this.activity(ctx);
      case 'chart_contacts_over_time':
        return this.contactsOverTime(ctx);
      case 'chart_visitor_devices':
        return this.devices(ctx);
      case 'chart_top_utm_sources':
        return this.utmSources(ctx);
      case 'chart_time_on_page':
        return this.timeOnPage(ctx);
      case 'chart_button_clicks':
        return this.buttonClicks(ctx);
    }
  }

  private async pageToPage({ funnelId, pages, window, abTest }: ChartContext): Promise<ChartDataPoint[]> {
    const dimension =
      !abTest || abTest === 'all' ? SESSION_DIMENSIONS.page : SESSION_DIMENSIONS.pageOf(abTest);
    const sums = (await this.rollups.sessions(funnelId, window, [dimension])).get(dimension) as Map<
      string,
      { sessions: number }
    >;
    let previous = 0;
    return pages.map((page, index) => {
      const value = sums.get(page.slug)?.sessions ?? 0;
      const relativeValue = index === 0 ? 1 : ratio(value, previous);
      previous = value;
      return { key: page.slug, name: page.title, value, relativeValue };
    });
  }

  private async activity({ funnelId, window }: ChartContext): Promise<ChartDataPoint[]> {
    const slots = await this.rollups.activity(funnelId, window);
    return slots.map((value, slot) => ({ ...slotLabel(slot), value }));
  }

  private async contactsOverTime({ funnelId, window }: ChartContext): Promise<ChartDataPoint[]> {
    const unit = window.to - window.from <= DAILY_UP_TO_MS ? 'day' : 'month';
    const counts = await this.crm.contactsBy(funnelId, window, unit);
    return calendarKeys(window.from, window.to, window.zone, unit).map((key) => ({
      key,
      value: counts.get(key) ?? 0,
    }));
  }

  private async devices({ funnelId, window }: ChartContext): Promise<ChartDataPoint[]> {
    const sums = (await this.rollups.sessions(funnelId, window, [SESSION_DIMENSIONS.device])).get(
      SESSION_DIMENSIONS.device,
    ) as Map<string, { sessions: number }>;
    const total = [...sums.values()].reduce((sum, c) => sum + c.sessions, 0);
    return DEVICES.map((device) => {
      const value = sums.get(device)?.sessions ?? 0;
      return { key: device, value, relativeValue: ratio(value, total) };
    });
  }

  private async utmSources({ funnelId, window }: ChartContext): Promise<ChartDataPoint[]> {
    const sums = (await this.rollups.sessions(funnelId, window, [SESSION_DIMENSIONS.source])).get(
      SESSION_DIMENSIONS.source,
    ) as Map<string, { sessions: number }>;
    const withSource = [...sums.values()].reduce((sum, c) => sum + c.sessions, 0);
    return [...sums.entries()]
      .map(([key, c]) => ({ key, value: c.sessions, relativeValue: ratio(c.sessions, withSource) }))
      .sort(byValueThenKey)
      .slice(0, TOP_SOURCES);
  }

  private async timeOnPage({ funnelId, pages, window }: ChartContext): Promise<ChartDataPoint[]> {
    const sums = await this.rollups.events(funnelId, window, 'page');
    return pages.map((page) => {
      const c = sums.get(page.slug);
      return { key: page.slug, name: page.title, value: c?.timed ? round(c.totalMs / c.timed / 1000, 2) : 0 };
    });
  }

  private async buttonClicks({ funnelId, window }: ChartContext): Promise<ChartDataPoint[]> {
    const sums = await this.rollups.events(funnelId, window, 'button');
    return [...sums.entries()]
      .map(([key, c]) => ({ key, name: c.label ?? key, value: c.events }))
      .sort(byValueThenKey);
  }
}
