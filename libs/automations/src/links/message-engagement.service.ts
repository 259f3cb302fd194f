import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NotFoundError } from '@app/core';
import { EventsService, parseEventBatch } from '@app/metrics';
import { templateLinks } from '../mail/mail-content';
import { MessageTokens } from '../mail/message-tokens';
import { MessageStateRepository } from './message-state.repository';

export const INVALID_TRACKING_LINK = 'This link is not valid (incomplete or altered)';

// The template of the automation that sent the message (an email's id is its run's): templates
// are never edited, so its links are the links the message carried.
const TEMPLATE_OF_MESSAGE = `
  SELECT a.message_template AS template
  FROM contact_messages m
  JOIN automation_runs r ON r.funnel_id = m.funnel_id AND r.id = m.id
  JOIN automations a ON a.funnel_id = r.funnel_id AND a.id = r.automation_id
  WHERE m.funnel_id = $1 AND m.id = $2`;

/**
 * What the service observes of a sent email, recorded as the message events the message KPIs
 * count: `message_delivered` when the SMTP server accepted it, `message_opened` at the open
 * pixel or a tracked click (the first counts); and the message's own state (its first open, its
 * clicks) on the contact.
 */
@Injectable()
export class MessageEngagementService {
  private readonly logger = new Logger(MessageEngagementService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventsService,
    private readonly tokens: MessageTokens,
    private readonly state: MessageStateRepository,
  ) {}

  /** Never throws: a message whose delivery could not be recorded stays sent. */
  async delivered(funnelId: string, messageIds: string[]): Promise<void> {
    try {
      await this.record(funnelId, messageIds, 'message_delivered');
    } catch (error) {
      this.logger.warn(
        `${messageIds.length} message(s) of funnel ${funnelId}: recording their delivery failed: ${(error as Error).message}`,
      );
    }
  }

  /** The open pixel: a token that is not ours is a 404 and records nothing. */
  async opened(token: string): Promise<void> {
    const meaning = this.tokens.verify(token);
    if (meaning?.kind !== 'open') throw new NotFoundError(INVALID_TRACKING_LINK);
    await this.state.opened(meaning.funnelId, meaning.messageId);
    await this.record(meaning.funnelId, [meaning.messageId], 'message_opened');
  }

  /** A tracked link: where it leads, only ever a link of the message itself; a click counts as an open. */
  async clicked(token: string): Promise<string> {
    const meaning = this.tokens.verify(token);
    if (meaning?.kind !== 'click') throw new NotFoundError(INVALID_TRACKING_LINK);
    const rows = (await this.dataSource.query(TEMPLATE_OF_MESSAGE, [
      meaning.funnelId,
      meaning.messageId,
    ])) as {
      template: string | null;
    }[];
    const target = templateLinks(rows[0]?.template ?? '')[meaning.link];
    if (!target) throw new NotFoundError('The message of this link no longer exists');
    await this.state.clicked(meaning.funnelId, meaning.messageId);
    await this.record(meaning.funnelId, [meaning.messageId], 'message_opened');
    return target;
  }

  private async record(funnelId: string, messageIds: string[], type: string): Promise<void> {
    const occurredAt = new Date().toISOString();
    const events = parseEventBatch({
      events: messageIds.map((messageId) => ({
        type,
        sessionId: `message-${messageId}`,
        occurredAt,
        messageId,
      })),
    });
    await this.events.record(funnelId, events);
  }
}
