import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { AutomationsModule } from '@app/automations';
import { ContactsModule } from '@app/contacts';
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
import {
  AutomationDeleteCommand,
  AutomationDisableCommand,
  AutomationEnableCommand,
  AutomationListCommand,
} from './commands/automation-manage.command';
import { CitusCommand, CitusDistributeCommand, CitusRebalanceCommand } from './commands/citus.command';
import { CompanyCommand, CompanyCreateCommand, CompanyListCommand } from './commands/company.command';
import { ContactCommand, ContactImportCommand } from './commands/contact.command';
import { DemoCommand, DemoSeedCommand } from './commands/demo.command';
import {
  FunnelCommand,
  FunnelCreateCommand,
  FunnelListCommand,
  FunnelShowCommand,
} from './commands/funnel.command';
import { MailCommand, MailListCommand, MailShowCommand } from './commands/mail.command';
import { FunnelCollectionCommand } from './commands/funnel-collection.command';
import { WorkspaceCommand, WorkspaceCreateCommand, WorkspaceListCommand } from './commands/workspace.command';
import { databaseSchema } from '../../../db/schema';
import { CitusRepository } from './citus/citus.repository';
import { CitusDistributionService } from './citus/citus-distribution.service';
import { CitusRebalanceService } from './citus/citus-rebalance.service';
import { CitusShardsRepository } from './citus/citus-shards.repository';
import { DemoSeedRepository } from './demo/demo-seed.repository';
import { DemoSeedService } from './demo/demo-seed.service';
import { ContactImportService } from './import/contact-import.service';

const COMMANDS = [
  CompanyCommand,
  CompanyCreateCommand,
  CompanyListCommand,
  WorkspaceCommand,
  WorkspaceCreateCommand,
  WorkspaceListCommand,
  FunnelCommand,
  FunnelCreateCommand,
  FunnelListCommand,
  FunnelShowCommand,
  FunnelCollectionCommand,
  ContactCommand,
  ContactImportCommand,
  ApiKeyCommand,
  ApiKeyCreateCommand,
  ApiKeyRevokeCommand,
  ApiKeyListCommand,
  AutomationCommand,
  AutomationCreateCommand,
  AutomationListCommand,
  AutomationEnableCommand,
  AutomationDisableCommand,
  AutomationDeleteCommand,
  AutomationRunsCommand,
  MailCommand,
  MailListCommand,
  MailShowCommand,
  DemoCommand,
  DemoSeedCommand,
  CitusCommand,
  CitusDistributeCommand,
  CitusRebalanceCommand,
];

@Module({})
export class AdminModule {
  static forRoot(options: CoreModuleOptions): DynamicModule {
    return {
      module: AdminModule,
      imports: [
        CoreModule.forRoot(options, databaseSchema),
        AuthModule,
        WorkspacesModule,
        ContactsModule,
        AutomationsModule,
        MetricsModule,
      ],
      providers: [
        ...COMMANDS,
        CitusRepository,
        CitusDistributionService,
        CitusShardsRepository,
        CitusRebalanceService,
        DemoSeedService,
        DemoSeedRepository,
        ContactImportService,
      ],
    };
  }
}
