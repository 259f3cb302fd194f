import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkspacesModule } from '@app/workspaces';
import { ContactJsonCache } from './contact-json.cache';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';
import { contactEntities } from './entities';

/**
 * CRM contacts: the REST routes and ContactsService, which the MCP tools and automations reuse.
 * Needs the global AutomationTrigger (AutomationsModule) and ContactLinkEraser (MetricsModule)
 * providers in the importing app.
 */
@Module({
  imports: [TypeOrmModule.forFeature(contactEntities), WorkspacesModule],
  controllers: [ContactsController],
  providers: [
    ContactsService,
    ContactsRepository,
    { provide: ContactJsonCache, useFactory: () => new ContactJsonCache() },
  ],
  exports: [ContactsService],
})
export class ContactsModule {}
