import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

// Only a contact still subscribed is changed, so the first unsubscribe time is kept.
const UNSUBSCRIBE = `
  UPDATE contacts
  SET meta = meta || jsonb_build_object('ps_unsubscribed', true,
        'ps_unsubscribed_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
      updated_at = now()
  WHERE funnel_id = $1 AND id = $2 AND (meta->>'ps_unsubscribed') IS DISTINCT FROM 'true'`;

const RESUBSCRIBE = `
  UPDATE contacts SET meta = meta - 'ps_unsubscribed' - 'ps_unsubscribed_at', updated_at = now()
  WHERE funnel_id = $1 AND id = $2 AND meta ? 'ps_unsubscribed'`;

/** A contact's email subscription, kept in its read-only `meta` (ps_unsubscribed, ps_unsubscribed_at). */
@Injectable()
export class EmailSubscriptionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async unsubscribe(funnelId: string, contactId: string): Promise<void> {
    await this.dataSource.query(UNSUBSCRIBE, [funnelId, contactId]);
  }

  async resubscribe(funnelId: string, contactId: string): Promise<void> {
    await this.dataSource.query(RESUBSCRIBE, [funnelId, contactId]);
  }

  /** null when the contact does not exist (any more). */
  async state(funnelId: string, contactId: string): Promise<{ unsubscribed: boolean } | null> {
    const rows = (await this.dataSource.query(
      `SELECT (meta->>'ps_unsubscribed') = 'true' AS unsubscribed FROM contacts WHERE funnel_id = $1 AND id = $2`,
      [funnelId, contactId],
    )) as { unsubscribed: boolean | null }[];
    return rows.length ? { unsubscribed: rows[0].unsubscribed === true } : null;
  }
}
