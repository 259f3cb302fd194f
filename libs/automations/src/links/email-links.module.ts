import { Module } from '@nestjs/common';
import { WorkspacesModule } from '@app/workspaces';
import {
  EmailSubscriptionController,
  EmailTrackingController,
  UnsubscribeController,
} from './email-links.controller';
import { MessageStateRepository } from './message-state.repository';
import { MessageEngagementService } from './message-engagement.service';
import { AutomationsController } from '../rest/automations.controller';
import { EmailSubscriptionRepository } from './email-subscription.repository';
import { EmailSubscriptionService } from './email-subscription.service';
import { SmsStatusController } from '../sms/sms-status.controller';
import { SmsStatusService } from '../sms/sms-status.service';

/**
 * The public routes of sent email's links and of the SMS gateway's reports, the subscription write and the automations routes;
 * imported by the HTTP app (AutomationsService comes from the global AutomationsModule).
 */
@Module({
  imports: [WorkspacesModule],
  controllers: [
    UnsubscribeController,
    EmailTrackingController,
    EmailSubscriptionController,
    AutomationsController,
    SmsStatusController,
  ],
  providers: [
    EmailSubscriptionService,
    EmailSubscriptionRepository,
    MessageEngagementService,
    MessageStateRepository,
    SmsStatusService,
  ],
})
export class EmailLinksModule {}
