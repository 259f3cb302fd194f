import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { MAX_MESSAGE_SUBJECT_LENGTH } from '@app/contacts';
import type { AppConfigService } from '@app/core';
import type { ClaimedRun } from '../worker/automation-run.queue';
import { MailDecorations, renderMail } from './mail-content';
import { MailSender } from './mail-sender';
import { MessageTokens } from './message-tokens';
import { SentEmailRecorder } from './sent-email.recorder';

/** The run ends without sending, for a reason kept in its `lastError` (e.g. no email address). */
export class RunSkipped extends Error {}

/**
 * Sends one email automation run: rendered for the contact as the run froze it, sent over SMTP,
 * then the message and the run's success committed together. A crash between the server's
 * acceptance and that commit sends the email again on the next attempt, with the same Message-ID
 * (at least once); the contact still gets one message (its id is the run's).
 */
@Injectable()
export class EmailDelivery {
  private readonly publicUrl: string;

  constructor(
    @Inject(ConfigService) env: AppConfigService,
    private readonly sender: MailSender,
    private readonly tokens: MessageTokens,
    private readonly recorder: SentEmailRecorder,
  ) {
    const base =
      env.get('BASE_URL', { infer: true }) ?? `http://localhost:${env.get('PORT', { infer: true })}`;
    this.publicUrl = base.replace(/\/+$/, '');
  }

  /** Returns false when the run's lease was lost before the outcome could be recorded. */
  async deliver(run: ClaimedRun): Promise<boolean> {
    const { automation, payload } = run;
    const to = payload.contact.email;
    if (typeof to !== 'string' || !to) throw new RunSkipped('skipped: the contact has no email address');
    // Read by the claim, not from the frozen payload: an unsubscribe after the change still stops the email.
    const subscription = run.recipient;
    if (!subscription) throw new RunSkipped('skipped: the contact no longer exists');
    if (subscription.unsubscribed) throw new RunSkipped('skipped: the contact unsubscribed from email');
    const unsubscribe = this.tokens.sign({
      kind: 'unsubscribe',
      funnelId: run.funnelId,
      contactId: run.contactId,
    });
    const unsubscribeUrl = `${this.publicUrl}/email/unsubscribe/${unsubscribe}`;
    const content = renderMail(
      automation.messageSubject ?? '',
      automation.messageTemplate ?? '',
      payload.contact,
      automation.trackEngagement ? this.tracking(run, unsubscribeUrl) : { unsubscribeUrl },
    );
    const mailto = `mailto:${this.sender.fromAddress}?subject=${encodeURIComponent(`unsubscribe ${unsubscribe}`)}`;
    await this.sender.send({
      to,
      messageId: `<${run.id}@${this.sender.fromDomain}>`,
      subject: content.subject,
      text: content.text,
      html: content.html,
      headers: {
        'List-Unsubscribe': `<${unsubscribeUrl}>, <${mailto}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        'X-Automation-Run-Id': run.id,
      },
    });
    const accepted = new Date();
    return this.recorder.record(run, {
      id: run.id,
      contactId: run.contactId,
      funnelId: run.funnelId,
      name: automation.name,
      type: 'email',
      subject: content.subject.slice(0, MAX_MESSAGE_SUBJECT_LENGTH),
      content: content.body,
      // The server's acceptance is the delivery the service can observe.
      status: 'delivered',
      sentAt: accepted,
      deliveredAt: accepted,
    });
  }

  /** Resolves once what was sent so far is fully recorded (its delivery events included). */
  settled(): Promise<void> {
    return this.recorder.settled();
  }

  /** The pixel and the links through the service, each with its signed token. */
  private tracking(run: ClaimedRun, unsubscribeUrl: string): MailDecorations {
    const { funnelId, id: messageId } = run;
    return {
      unsubscribeUrl,
      openPixelUrl: `${this.publicUrl}/email/open/${this.tokens.sign({ kind: 'open', funnelId, messageId })}`,
      trackedLink: (link) =>
        `${this.publicUrl}/email/click/${this.tokens.sign({ kind: 'click', funnelId, messageId, link })}`,
    };
  }
}
