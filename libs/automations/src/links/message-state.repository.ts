import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MAX_MESSAGE_FAILURE_LENGTH } from '@app/contacts';

// The first open only: later ones write nothing (and do not touch the contact).
const OPENED = `
  UPDATE contact_messages
  SET opened_at = now(), status = CASE WHEN status = 'delivered' THEN 'opened' ELSE status END
  WHERE funnel_id = $1 AND id = $2 AND opened_at IS NULL`;

// Every click counts; the first also opens the message (a click means it was read).
const CLICKED = `
  UPDATE contact_messages
  SET clicks = clicks + 1, clicked_at = coalesce(clicked_at, now()), opened_at = coalesce(opened_at, now()),
      status = CASE WHEN status = 'delivered' THEN 'opened' ELSE status END
  WHERE funnel_id = $1 AND id = $2`;

// A gateway's report: delivered is final; a failure never undoes a delivery reported before it.
const REPORTED = `
  UPDATE contact_messages
  SET status = $3, delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END,
      failure = CASE WHEN $3 = 'failed' THEN $4 ELSE NULL END
  WHERE funnel_id = $1 AND id = $2 AND status = 'sent'`;

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
    await this.dataSource.query(CLICKED, [funnelId, messageId]);
  }

  /** A gateway's report on a message it was handed; false when no such message waits for one. */
  async reported(
    funnelId: string,
    messageId: string,
    outcome: 'delivered' | 'failed',
    failure?: string,
  ): Promise<boolean> {
    const [, affected] = (await this.dataSource.query(REPORTED, [
      funnelId,
      messageId,
      outcome,
      outcome === 'failed' ? (failure ?? 'failed').slice(0, MAX_MESSAGE_FAILURE_LENGTH) : null,
    ])) as [unknown, number];
    return affected === 1;
  }
}
