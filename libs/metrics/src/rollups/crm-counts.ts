import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { MetricWindow } from '../query/metric-query';
import { offsetAtSql } from '../time/zone-sql';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Counts read from the CRM tables: contacts by meta.ps_converted_at (index funnel_id, converted_at)
 * and contact messages by send time (index funnel_id, created_at), each with the anonymous rows
 * erased contacts and their messages left (so an erasure changes no count). `to` covers its whole
 * millisecond.
 */
@Injectable()
export class CrmCounts {
  constructor(private readonly dataSource: DataSource) {}

  /** Contacts converted in the window, per local day (`YYYY-MM-DD`) or month (`YYYY-MM`). */
  async contactsBy(
    funnelId: string,
    window: MetricWindow,
    unit: 'day' | 'month',
  ): Promise<Map<string, number>> {
    const params: unknown[] = [
      funnelId,
      iso(window.from),
      iso(window.to + 1),
      unit === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM',
    ];
    const offsetAt = offsetAtSql(window.zone.periods(window.from, window.to), params);
    const offset = offsetAt('floor(extract(epoch FROM converted_at) / 60)::bigint');
    const rows: { key: string; contacts: number }[] = await this.dataSource.query(
      `SELECT to_char((converted_at AT TIME ZONE 'UTC') - make_interval(mins => ${offset}), $4) AS key,
              count(*)::int AS contacts
       FROM (SELECT converted_at FROM contacts WHERE funnel_id = $1 AND converted_at >= $2 AND converted_at < $3
             UNION ALL
             SELECT converted_at FROM erased_contacts WHERE funnel_id = $1 AND converted_at >= $2 AND converted_at < $3) c
       GROUP BY 1`,
      params,
    );
    return new Map(rows.map((r) => [r.key, r.contacts]));
  }

  async contacts(funnelId: string, window: MetricWindow): Promise<number> {
    const [row]: { contacts: string }[] = await this.dataSource.query(
      `SELECT (SELECT count(*) FROM contacts WHERE funnel_id = $1 AND converted_at >= $2 AND converted_at < $3)
            + (SELECT count(*) FROM erased_contacts WHERE funnel_id = $1 AND converted_at >= $2 AND converted_at < $3)
            AS contacts`,
      [funnelId, iso(window.from), iso(window.to + 1)],
    );
    return Number(row.contacts);
  }

  /** Contact messages sent (created) in the window. */
  async messagesSent(funnelId: string, window: MetricWindow): Promise<number> {
    const [row]: { sent: string }[] = await this.dataSource.query(
      `SELECT (SELECT count(*) FROM contact_messages WHERE funnel_id = $1 AND created_at >= $2 AND created_at < $3)
            + (SELECT count(*) FROM erased_contact_messages WHERE funnel_id = $1 AND sent_at >= $2 AND sent_at < $3)
            AS sent`,
      [funnelId, iso(window.from), iso(window.to + 1)],
    );
    return Number(row.sent);
  }
}
