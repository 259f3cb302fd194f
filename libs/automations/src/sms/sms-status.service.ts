import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { type AppConfigService, DomainException, NotFoundError, ValidationError } from '@app/core';
import { MessageEngagementService } from '../links/message-engagement.service';
import { MessageStateRepository } from '../links/message-state.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const OUTCOMES = ['delivered', 'failed'] as const;

export const BAD_SMS_SIGNATURE = 'The X-Signature of this status report is missing or wrong';

/** A delivery report of the SMS gateway, as it POSTs it to /sms/status. */
export interface SmsStatusReport {
  messageId: string;
  status: (typeof OUTCOMES)[number];
  error?: string;
}

/**
 * The gateway's delivery reports: signed with SMS_GATEWAY_SECRET over the exact body bytes (the
 * scheme of the requests sent to it). A report with a bad signature is refused before anything
 * is read or written; a valid one moves a `sent` SMS to `delivered` (recording
 * `message_delivered`) or `failed`, once.
 */
@Injectable()
export class SmsStatusService {
  private readonly secret: string | undefined;

  constructor(
    @Inject(ConfigService) env: AppConfigService,
    private readonly state: MessageStateRepository,
    private readonly engagement: MessageEngagementService,
  ) {
    this.secret = env.get('SMS_GATEWAY_SECRET', { infer: true });
  }

  async report(rawBody: Buffer | undefined, signature: string | undefined, body: unknown): Promise<void> {
    if (!this.secret) throw new NotFoundError('SMS status reports are not enabled (no SMS_GATEWAY_URL)');
    if (!rawBody || !signatureMatches(rawBody, signature, this.secret))
      throw new DomainException(401, BAD_SMS_SIGNATURE);
    const report = readReport(body);
    const funnelId = await this.state.reported(report.messageId, report.status, report.error);
    if (funnelId === undefined) throw new NotFoundError('No SMS message has this messageId');
    // null: already reported before; the first report counts.
    if (funnelId && report.status === 'delivered')
      await this.engagement.delivered(funnelId, [report.messageId]);
  }
}

function signatureMatches(raw: Buffer, header: string | undefined, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
  const received = Buffer.from(header ?? '');
  return received.length === expected.length && timingSafeEqual(received, expected);
}

function readReport(body: unknown): SmsStatusReport {
  const problems: string[] = [];
  const { messageId, status, error } = (body ?? {}) as Record<string, unknown>;
  if (typeof messageId !== 'string' || !UUID.test(messageId))
    problems.push('messageId must be the message id (a UUID)');
  if (!OUTCOMES.includes(status as SmsStatusReport['status']))
    problems.push('status must be delivered or failed');
  if (error !== undefined && typeof error !== 'string') problems.push('error must be text');
  if (problems.length) throw new ValidationError('Invalid status report', problems);
  return {
    messageId: messageId as string,
    status: status as SmsStatusReport['status'],
    error: error as string | undefined,
  };
}
