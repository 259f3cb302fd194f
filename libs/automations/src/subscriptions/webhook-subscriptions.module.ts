import { Module } from '@nestjs/common';
import { WorkspacesModule } from '@app/workspaces';
import { WebhookSubscriptionsController } from './webhook-subscriptions.controller';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';

/** The REST hook routes; imported by the HTTP app (the cipher comes from the global AutomationsModule). */
@Module({
  imports: [WorkspacesModule],
  controllers: [WebhookSubscriptionsController],
  providers: [WebhookSubscriptionsService, WebhookSubscriptionsRepository],
})
export class WebhookSubscriptionsModule {}
