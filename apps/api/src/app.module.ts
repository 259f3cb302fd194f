import { DynamicModule, Module } from '@nestjs/common';
import { ApiKeyAuthModule } from '@app/auth';
import { AutomationsModule } from '@app/automations';
import { CoreModule, CoreModuleOptions } from '@app/core';
import { WorkspacesModule } from '@app/workspaces';
import { HealthController } from './health.controller';

@Module({})
export class AppModule {
  static forRoot(options: CoreModuleOptions): DynamicModule {
    return {
      module: AppModule,
      controllers: [HealthController],
      imports: [CoreModule.forRoot(options), ApiKeyAuthModule, WorkspacesModule, AutomationsModule],
    };
  }
}
