import { Injectable } from '@nestjs/common';
import { ReadPool } from '@app/core';

/** A half-open range of time, epoch milliseconds. */
export interface CountRange {
  from: number;
  to: number;
}

/**
 * A local calendar: the UTC offsets in force (getTimezoneOffset minutes), each from a minute
 * since the epoch on (the first from the far past), and the key each local time is counted under.
 */
export interface LocalCalendar {
  offsets: { sinceMinute: number; offset: number }[];
  format: 'YYYY-MM-DD' | 'YYYY-MM';
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * What the metrics count of the CRM, read by the domain that owns the tables: contacts by
 * meta.ps_converted_at (index funnel_id, converted_at) and contact messages by send time (index
 * funnel_id, created_at), each with the anonymous rows erased contacts and their messages left, so
 * an erasure changes no count.
 */
@Injectable()
export class ContactCountsReader {
  constructor(private readonly reads: ReadPool) {}

  /** Contacts of the funnel converted in the range. */
  async converted(funnelId: string, range: CountRange): Promise<number> {
    const [row]: { contacts: string }[] = await this.reads.rows(
      `SELECT (SELECT count(*) FROM contacts WHERE funnel_id = $1 AND converted_at >= $2 AND converted_at < $3)
            + (SELECT count(*) FROM erased_contacts WHERE funnel_id = $1 AND converted_at >= $2 AND converted_at < $3)
            AS contacts`,
      [funnelId, iso(range.from), iso(range.to)],
    );
    return Number(row.contacts);
  }

  /** Contacts of the funnel converted in the range, per local day or month of the calendar. */
  async convertedPerLocalKey(
    funnelId: string,
    range: CountRange,
    calendar: LocalCalendar,
  ): Promise<Map<string, number>> {
    // Counted per UTC minute first (offsets are whole minutes), then each minute takes the offset
    // in force at it: the one whose span [since, next since) holds it.
    const rows: { key: string; contacts: number }[] = await this.reads.rows(
      `WITH offsets AS (
         SELECT z.since, lead(z.since) OVER (ORDER BY z.since) AS until, z.off
         FROM unnest($5::bigint[], $6::int[]) AS z(since, off)),
       minutes AS (
         SELECT floor(extract(epoch FROM c.converted_at) / 60)::bigint AS minute, count(*)::int AS contacts
         FROM (SELECT converted_at FROM contacts WHERE funnel_id = $1 AND converted_at >= $2 AND converted_at < $3
               UNION ALL
               SELECT converted_at FROM erased_contacts WHERE funnel_id = $1 AND converted_at >= $2 AND converted_at < $3) c
         GROUP BY 1)
       SELECT to_char((to_timestamp(m.minute * 60) AT TIME ZONE 'UTC') - make_interval(mins => o.off), $4) AS key,
              sum(m.contacts)::int AS contacts
       FROM minutes m JOIN offsets o ON o.since <= m.minute AND (o.until IS NULL OR m.minute < o.until)
       GROUP BY 1`,
      [
        funnelId,
        iso(range.from),
        iso(range.to),
        calendar.format,
        calendar.offsets.map((o) => o.sinceMinute),
        calendar.offsets.map((o) => o.offset),
      ],
    );
    return new Map(rows.map((r) => [r.key, r.contacts]));
  }

  /** Contact messages of the funnel sent (created) in the range. */
  async messagesSent(funnelId: string, range: CountRange): Promise<number> {
    const [row]: { sent: string }[] = await this.reads.rows(
      `SELECT (SELECT count(*) FROM contact_messages WHERE funnel_id = $1 AND created_at >= $2 AND created_at < $3)
            + (SELECT count(*) FROM erased_contact_messages WHERE funnel_id = $1 AND sent_at >= $2 AND sent_at < $3)
            AS sent`,
      [funnelId, iso(range.from), iso(range.to)],
    );
    return Number(row.sent);
  }
}

/**
 * Contact messages as relations the metrics join in their own statements (ingestion runs in one
 * transaction of prepared statements, a window's read in one snapshot), written here so that
 * contacts alone knows its tables. Each takes SQL expressions for its values.
 */
export const CONTACT_MESSAGES_SQL = {
  /**
   * The funnel's messages among the ids (`id`, `funnel_id`, `sent_at`), by primary key (funnel, id):
   * naming the funnel keeps the lookup on its shard on Citus.
   */
  byIds: (funnelId: string, ids: string) =>
    `(SELECT id, funnel_id, created_at AS sent_at FROM contact_messages WHERE funnel_id = ${funnelId} AND id = ANY(${ids}))`,
  /** The funnel's messages (`id`, `sent_at`) sent in [from, to), through its index by send time. */
  sentIn: (funnelId: string, from: string, to: string) =>
    `(SELECT id, created_at AS sent_at FROM contact_messages
      WHERE funnel_id = ${funnelId} AND created_at >= ${from} AND created_at < ${to})`,
};
