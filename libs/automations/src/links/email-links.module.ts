import { Module } from '@nestjs/common';
import { WorkspacesModule } from '@app/workspaces';
import {
  EmailSubscriptionController,
  EmailTrackingController,
  UnsubscribeController,
} from './email-links.controller';
import { MessageEngagementService } from './message-engagement.service';
import { EmailSubscriptionRepository } from './email-subscription.repository';
import { EmailSubscriptionService } from './email-subscription.service';

/** The public routes of sent email's links and the subscription write; imported by the HTTP app. */
@Module({
  imports: [WorkspacesModule],
  controllers: [UnsubscribeController, EmailTrackingController, EmailSubscriptionController],
  providers: [EmailSubscriptionService, EmailSubscriptionRepository, MessageEngagementService],
})
export class EmailLinksModule {}
