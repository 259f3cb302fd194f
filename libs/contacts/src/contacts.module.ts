import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkspacesModule } from '@app/workspaces';
import { ContactJsonCache } from './contact-json.cache';
import { ContactPropertiesController } from './contact-properties.controller';
import { ContactPropertiesRepository } from './contact-properties.repository';
import { ContactPropertiesService } from './contact-properties.service';
import {
  ContactPropertyValuesFiller,
  ContactPropertyValuesFillerJob,
} from './contact-property-values.filler';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactWritesRepository } from './contact-writes.repository';
import { ContactBatchWriter } from './contacts-batch';
import { ContactCaptureService } from './contact-capture';
import { ContactReads } from './contact-reads';
import { ContactsService } from './contacts.service';
import { ContactsExportService } from './contacts-export.service';
import { ContactsSearchController } from './contacts-search.controller';
import { ContactsSearchService } from './contacts-search.service';
import { contactEntities } from './entities';

/**
 * CRM contacts: the REST routes and ContactsService, which the MCP tools and automations reuse.
 * Needs the global AutomationTrigger (AutomationsModule) and ContactLinkEraser (MetricsModule)
 * providers in the importing app.
 */
@Module({
  imports: [TypeOrmModule.forFeature(contactEntities), WorkspacesModule],
  // Search and export first: their paths would otherwise be read as contact ids.
  controllers: [ContactsSearchController, ContactsController, ContactPropertiesController],
  providers: [
    ContactsService,
    ContactReads,
    ContactCaptureService,
    ContactsRepository,
    ContactPropertiesService,
    ContactWritesRepository,
    ContactBatchWriter,
    ContactPropertiesRepository,
    ContactsSearchService,
    ContactsExportService,
    ContactPropertyValuesFiller,
    { provide: ContactJsonCache, useFactory: () => new ContactJsonCache() },
  ],
  exports: [
    ContactsService,
    ContactCaptureService,
    ContactPropertiesService,
    ContactsSearchService,
    ContactPropertyValuesFiller,
  ],
})
export class ContactsModule {}

/** The background copy of typed property values (ContactPropertyValuesFiller), for the HTTP app. */
@Module({ imports: [ContactsModule], providers: [ContactPropertyValuesFillerJob] })
export class ContactPropertyValuesFillerModule {}
