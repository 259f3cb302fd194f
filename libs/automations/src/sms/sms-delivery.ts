import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { insertContactMessage, type NewContactMessage } from '@app/contacts';
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

  /**
   * Returns false when the run's lease was lost before the outcome could be recorded. Without a
   * gateway the message is only recorded (`recorded`).
   */
  async deliver(run: ClaimedRun): Promise<boolean> {
    const { automation, payload } = run;
    const content = renderTemplate(automation.messageTemplate ?? '', payload.contact);
    if (!this.gateway) return this.record(run, content, { status: 'recorded' });
    const { url, secret } = this.gateway;
    const to = payload.contact.phone;
    if (typeof to !== 'string' || !to) throw new RunSkipped('skipped: the contact has no phone number');
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
    return this.record(run, content, { status: 'sent', sentAt: new Date() });
  }

  /**
   * The message and the run's success commit together, fenced by the lease: a retry or a second
   * worker can never record the same message twice.
   */
  private record(run: ClaimedRun, content: string, state: Pick<NewContactMessage, 'status' | 'sentAt'>) {
    return this.dataSource.transaction(async (manager) => {
      if (!(await this.queue.succeed(run, manager))) return false;
      await insertContactMessage(manager, {
        id: run.id,
        contactId: run.contactId,
        funnelId: run.funnelId,
        name: run.automation.name,
        type: 'sms',
        subject: null,
        content,
        ...state,
      });
      return true;
    });
  }
}
