import { Module } from '@nestjs/common';
import { EmailDelivery } from './mail/email-delivery';
import { MessageStateRepository } from './links/message-state.repository';
import { MessageEngagementService } from './links/message-engagement.service';
import { MailSender } from './mail/mail-sender';
import { SentEmailRecorder } from './mail/sent-email.recorder';
import { SmsDelivery } from './sms/sms-delivery';
import { WebhookSubscriptionsRepository } from './subscriptions/webhook-subscriptions.repository';
import { AutomationRunQueue } from './worker/automation-run.queue';
import { AutomationMetrics } from './worker/automation.metrics';
import { AutomationWorker } from './worker/automation.worker';

/** The delivery worker; imported by the HTTP app only, so admin commands never deliver. */
@Module({
  providers: [
    AutomationRunQueue,
    AutomationWorker,
    AutomationMetrics,
    WebhookSubscriptionsRepository,
    MailSender,
    EmailDelivery,
    SentEmailRecorder,
    SmsDelivery,
    MessageEngagementService,
    MessageStateRepository,
  ],
  exports: [AutomationWorker],
})
export class AutomationWorkerModule {}
