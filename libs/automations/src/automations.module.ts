import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfigService } from '@app/core';
import { AutomationTrigger } from '@app/contacts';
import { WorkspacesModule } from '@app/workspaces';
import { AutomationsRepository } from './automations.repository';
import { AutomationsService } from './automations.service';
import { WebhookSecretCipher } from './webhook-secret.cipher';
import { MessageTokens } from './mail/message-tokens';

/**
 * Implements the `AutomationTrigger` port that contacts owns; global so ContactsService finds it
 * without contacts importing automations (automations depends on contacts, not the reverse).
 * The delivery worker lives in AutomationWorkerModule, which only the HTTP app imports.
 */
@Global()
@Module({
  imports: [WorkspacesModule],
  providers: [
    AutomationsService,
    AutomationsRepository,
    { provide: AutomationTrigger, useExisting: AutomationsService },
    {
      provide: WebhookSecretCipher,
      inject: [ConfigService],
      useFactory: (config: AppConfigService) =>
        new WebhookSecretCipher(
          config.get('AUTOMATION_SECRET_KEY', { infer: true }),
          config.get('NODE_ENV', { infer: true }),
        ),
    },
    {
      provide: MessageTokens,
      inject: [WebhookSecretCipher],
      useFactory: (cipher: WebhookSecretCipher) => new MessageTokens(cipher),
    },
  ],
  exports: [AutomationsService, AutomationTrigger, WebhookSecretCipher, MessageTokens],
})
export class AutomationsModule {}
