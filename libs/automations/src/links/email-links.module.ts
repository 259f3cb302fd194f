import { Module } from '@nestjs/common';
import { WorkspacesModule } from '@app/workspaces';
import { EmailSubscriptionController, UnsubscribeController } from './email-links.controller';
import { EmailSubscriptionRepository } from './email-subscription.repository';
import { EmailSubscriptionService } from './email-subscription.service';

/** The public routes of sent email's links and the subscription write; imported by the HTTP app. */
@Module({
  imports: [WorkspacesModule],
  controllers: [UnsubscribeController, EmailSubscriptionController],
  providers: [EmailSubscriptionService, EmailSubscriptionRepository],
})
export class EmailLinksModule {}
