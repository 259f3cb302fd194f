import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkspacesModule } from '@app/workspaces';
import { ContactJsonCache } from './contact-json.cache';
import { ContactPropertiesController } from './contact-properties.controller';
import { ContactPropertiesRepository } from './contact-properties.repository';
import { ContactPropertiesService } from './contact-properties.service';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactWritesRepository } from './contact-writes.repository';
import { ContactBatchWriter } from './contacts-batch';
import { ContactsService } from './contacts.service';
import { contactEntities } from './entities';

/**
 * CRM contacts: the REST routes and ContactsService, which the MCP tools and automations reuse.
 * Needs the global AutomationTrigger (AutomationsModule) and ContactLinkEraser (MetricsModule)
 * providers in the importing app.
 */
@Module({
  imports: [TypeOrmModule.forFeature(contactEntities), WorkspacesModule],
  controllers: [ContactsController, ContactPropertiesController],
  providers: [
    ContactsService,
    ContactsRepository,
    ContactPropertiesService,
    ContactWritesRepository,
    ContactBatchWriter,
    ContactPropertiesRepository,
    { provide: ContactJsonCache, useFactory: () => new ContactJsonCache() },
  ],
  exports: [ContactsService, ContactPropertiesService],
})
export class ContactsModule {}
