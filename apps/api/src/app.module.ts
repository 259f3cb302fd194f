import { DynamicModule, Module } from '@nestjs/common';
import { ApiKeyAuthModule } from '@app/auth';
import { CollectionModule } from '@app/collection';
import {
  AutomationsModule,
  AutomationWorkerModule,
  EmailLinksModule,
  WebhookSubscriptionsModule,
} from '@app/automations';
import { ContactPropertyValuesFillerModule, ContactsModule } from '@app/contacts';
import type { Logger } from 'pino';
import {
  CoreModule,
  CoreModuleOptions,
  createRootLogger,
  EnvironmentVariables,
  ObservabilityModule,
  RateLimitModule,
  validateEnv,
} from '@app/core';
import { McpModule } from '@app/mcp';
import { EventRetentionModule, MetricsModule, SegmentFolderModule } from '@app/metrics';
import { OAuthModule } from '@app/oauth';
import { WorkspacesModule } from '@app/workspaces';
import { databaseSchema } from '../../../db/schema';
import { HealthController } from './health.controller';

@Module({})
export class AppModule {
  static forRoot(
    options: CoreModuleOptions & { env?: EnvironmentVariables; logger?: Logger },
  ): DynamicModule {
    const env = options.env ?? validateEnv(process.env);
    return {
      module: AppModule,
      controllers: [HealthController],
      imports: [
        CoreModule.forRoot({ ...options, timeouts: env, pooling: env }, databaseSchema),
        ObservabilityModule.forRoot(options.logger ?? createRootLogger(env)),
        // Before the API-key guard, so a request is counted (and refused) before its key is looked up.
        RateLimitModule.forRoot({
          perMinute: env.RATE_LIMIT_PER_MINUTE,
          authFailuresPerMinute: env.AUTH_FAILURES_PER_MINUTE,
          redisUrl: env.REDIS_URL,
        }),
        ApiKeyAuthModule.forRoot({ readRouting: Boolean(env.DATABASE_READ_URL) }),
        WorkspacesModule,
        ContactsModule,
        ContactPropertyValuesFillerModule,
        WebhookSubscriptionsModule,
        EmailLinksModule,
        MetricsModule,
        EventRetentionModule,
        SegmentFolderModule,
        OAuthModule,
        McpModule,
        CollectionModule,
        AutomationsModule,
        AutomationWorkerModule,
      ],
    };
  }
}
