import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { insertContactMessage } from '@app/contacts';
import type { AppConfigService } from '@app/core';
import { RunSkipped } from '../mail/email-delivery';
import { renderTemplate } from '../message-template';
import { AutomationRunQueue, type ClaimedRun } from '../worker/automation-run.queue';
import { postSigned, signatureOf } from '../worker/webhook-delivery';

/** The route the gateway reports delivery to (see SmsStatusController). */
export const SMS_STATUS_PATH = '/sms/status';

/**
 * Sends SMS automation runs through the operator's gateway (SMS_GATEWAY_URL): one signed POST per
 * message, then the message (`sent`, its id the run's) and the run's success committed together.
 * The gateway's later report (POST /sms/status) makes it delivered or failed. Like email, at least
 * once: a crash after the gateway's 2xx sends again, with the same messageId.
 */
@Injectable()
export class SmsDelivery {
  private readonly gateway: { url: string; secret: string } | undefined;
  private readonly statusUrl: string;
  private readonly timeoutMs: number;

  constructor(
    @Inject(ConfigService) env: AppConfigService,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly queue: AutomationRunQueue,
  ) {
    const url = env.get('SMS_GATEWAY_URL', { infer: true });
    const secret = env.get('SMS_GATEWAY_SECRET', { infer: true });
    this.gateway = url && secret ? { url, secret } : undefined;
    const base =
      env.get('BASE_URL', { infer: true }) ?? `http://localhost:${env.get('PORT', { infer: true })}`;
    this.statusUrl = `${base.replace(/\/+$/, '')}${SMS_STATUS_PATH}`;
    this.timeoutMs = env.get('AUTOMATION_WEBHOOK_TIMEOUT_MS', { infer: true });
  }

  /** Whether a gateway is configured (otherwise SMS messages are only recorded). */
  get configured(): boolean {
    return this.gateway !== undefined;
  }

  /** Returns false when the run's lease was lost before the outcome could be recorded. */
  async deliver(run: ClaimedRun): Promise<boolean> {
    const { url, secret } = this.gateway!;
    const { automation, payload } = run;
    const to = payload.contact.phone;
    if (typeof to !== 'string' || !to) throw new RunSkipped('skipped: the contact has no phone number');
    const content = renderTemplate(automation.messageTemplate ?? '', payload.contact);
    const body = JSON.stringify({ messageId: run.id, to, body: content, statusCallbackUrl: this.statusUrl });
    await postSigned(
      url,
      {
        'content-type': 'application/json',
        'user-agent': 'funnel-crm-automations/1',
        'x-signature': signatureOf(body, secret),
        // Stable across retries: the gateway deduplicates on it.
        'x-message-id': run.id,
        'x-automation-attempt': String(run.attempts),
      },
      body,
      this.timeoutMs,
    );
    const sent = new Date();
    return this.dataSource.transaction(async (manager) => {
      if (!(await this.queue.succeed(run, manager))) return false;
      await insertContactMessage(manager, {
        id: run.id,
        contactId: run.contactId,
        funnelId: run.funnelId,
        name: automation.name,
        type: 'sms',
        subject: null,
        content,
        status: 'sent',
        sentAt: sent,
      });
      return true;
    });
  }
}
