import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { AutomationsModule } from '@app/automations';
import { CoreModule, CoreModuleOptions } from '@app/core';
import { MetricsModule } from '@app/metrics';
import { WorkspacesModule } from '@app/workspaces';
import {
  ApiKeyCommand,
  ApiKeyCreateCommand,
  ApiKeyListCommand,
  ApiKeyRevokeCommand,
} from './commands/apikey.command';
import {
  AutomationCommand,
  AutomationCreateCommand,
  AutomationRunsCommand,
} from './commands/automation.command';
import { CompanyCommand, CompanyCreateCommand } from './commands/company.command';
import { DemoCommand, DemoSeedCommand } from './commands/demo.command';
import { FunnelCommand, FunnelCreateCommand } from './commands/funnel.command';
import { WorkspaceCommand, WorkspaceCreateCommand } from './commands/workspace.command';
import { DemoSeedService } from './demo/demo-seed.service';

const COMMANDS = [
  CompanyCommand,
  CompanyCreateCommand,
  WorkspaceCommand,
  WorkspaceCreateCommand,
  FunnelCommand,
  FunnelCreateCommand,
  ApiKeyCommand,
  ApiKeyCreateCommand,
  ApiKeyRevokeCommand,
  ApiKeyListCommand,
  AutomationCommand,
  AutomationCreateCommand,
  AutomationRunsCommand,
  DemoCommand,
  DemoSeedCommand,
];

@Module({})
export class AdminModule {
  static forRoot(options: CoreModuleOptions): DynamicModule {
    return {
      module: AdminModule,
      imports: [CoreModule.forRoot(options), AuthModule, WorkspacesModule, AutomationsModule, MetricsModule],
      providers: [...COMMANDS, DemoSeedService],
    };
  }
}
