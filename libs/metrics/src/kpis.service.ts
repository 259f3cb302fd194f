import { Injectable } from '@nestjs/common';
import { round } from './charts.service';
import type { KpiResult } from './dto/metrics.dto';
import { SESSION_DIMENSIONS } from './events/session-state';
import { KpiSubtype, kpiType } from './metric-definitions';
import type { MetricWindow } from './query/metric-query';
import { CrmCounts } from './rollups/crm-counts';
import { RollupReader } from './rollups/rollup-reader';

const percent = (part: number, whole: number) => (whole ? round((part / whole) * 100, 2) : 0);
const seconds = (totalMs: number, count: number) => (count ? round(totalMs / count / 1000, 2) : 0);

/** The nine KPIs of product decisions §6. Rates are percentages 0–100 and carry their denominator. */
@Injectable()
export class KpisService {
  constructor(
    private readonly rollups: RollupReader,
    private readonly crm: CrmCounts,
  ) {}

  async build(subtype: KpiSubtype, funnelId: string, window: MetricWindow): Promise<KpiResult> {
    const type = kpiType(subtype);
    switch (subtype) {
      case 'kpi_total_sessions':
      case 'kpi_conversion_rate':
      case 'kpi_completion_rate':
      case 'kpi_time_to_completion': {
        const all = (await this.rollups.sessions(funnelId, window, [SESSION_DIMENSIONS.all]))
          .get(SESSION_DIMENSIONS.all)
          ?.get('') ?? { sessions: 0, conversions: 0, completions: 0, completionMs: 0 };
        if (subtype === 'kpi_total_sessions') return { type, value: all.sessions };
        if (subtype === 'kpi_conversion_rate')
          return { type, value: percent(all.conversions, all.sessions), count: all.sessions };
        if (subtype === 'kpi_completion_rate')
          return { type, value: percent(all.completions, all.sessions), count: all.sessions };
        return { type, value: seconds(all.completionMs, all.completions), count: all.completions };
      }
      case 'kpi_average_time_on_page': {
        let timed = 0;
        let totalMs = 0;
        for (const c of (await this.rollups.events(funnelId, window, 'page')).values()) {
          timed += c.timed;
          totalMs += c.totalMs;
        }
        return { type, value: seconds(totalMs, timed), count: timed };
      }
      case 'kpi_new_contacts':
        return { type, value: await this.crm.contacts(funnelId, window) };
      case 'kpi_messages_sent':
        return { type, value: await this.crm.messagesSent(funnelId, window) };
      case 'kpi_messages_delivery_rate': {
        const [sent, { delivered }] = await Promise.all([
          this.crm.messagesSent(funnelId, window),
          this.rollups.messages(funnelId, window),
        ]);
        return { type, value: percent(delivered, sent), count: sent };
      }
      case 'kpi_messages_open_rate': {
        const { delivered, opened } = await this.rollups.messages(funnelId, window);
        return { type, value: percent(opened, delivered), count: delivered };
      }
    }
  }
}
