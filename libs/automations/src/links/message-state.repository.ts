import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MAX_MESSAGE_FAILURE_LENGTH } from '@app/contacts';

// The first open only: later ones write nothing (and do not touch the contact).
const OPENED = `
  UPDATE contact_messages
  SET opened_at = now(), status = CASE WHEN status = 'delivered' THEN 'opened' ELSE status END
  WHERE funnel_id = $1 AND id = $2 AND opened_at IS NULL`;

// Every click counts; the first also opens the message (a click means it was read). The time is a
// parameter: Citus refuses now() inside coalesce or CASE in a distributed UPDATE.
const CLICKED = `
  UPDATE contact_messages
  SET clicks = clicks + 1, clicked_at = coalesce(clicked_at, $3::timestamptz),
      opened_at = coalesce(opened_at, $3::timestamptz),
      status = CASE WHEN status = 'delivered' THEN 'opened' ELSE status END
  WHERE funnel_id = $1 AND id = $2`;

// A gateway's report on an SMS it was handed: the first counts (delivered or failed is final).
const REPORTED = `
  UPDATE contact_messages
  SET status = $2::varchar, delivered_at = CASE WHEN $2::varchar = 'delivered' THEN $4::timestamptz END,
      failure = $3
  WHERE id = $1 AND type = 'sms' AND status = 'sent'
  RETURNING funnel_id`;

const SMS_EXISTS = `SELECT 1 FROM contact_messages WHERE id = $1 AND type = 'sms'`;

/**
 * The observed state of a contact message (contact_messages: status, sent/delivered/opened/clicked
 * times, clicks). Each change touches the contact, whose `messages` member it is.
 */
@Injectable()
export class MessageStateRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async opened(funnelId: string, messageId: string): Promise<void> {
    await this.dataSource.query(OPENED, [funnelId, messageId]);
  }

  async clicked(funnelId: string, messageId: string): Promise<void> {
    await this.dataSource.query(CLICKED, [funnelId, messageId, new Date()]);
  }

  /**
   * A gateway's report on an SMS it was handed: the message's funnel when this report changed it,
   * null when it had been reported already, undefined when there is no such SMS.
   */
  async reported(
    messageId: string,
    outcome: 'delivered' | 'failed',
    failure?: string,
  ): Promise<string | null | undefined> {
    const [rows] = (await this.dataSource.query(REPORTED, [
      messageId,
      outcome,
      outcome === 'failed' ? (failure || 'failed').slice(0, MAX_MESSAGE_FAILURE_LENGTH) : null,
      new Date(),
    ])) as [{ funnel_id: string }[], number];
    if (rows.length) return rows[0].funnel_id;
    const exists = (await this.dataSource.query(SMS_EXISTS, [messageId])) as unknown[];
    return exists.length ? null : undefined;
  }
}
