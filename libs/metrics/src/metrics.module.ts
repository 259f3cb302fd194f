import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContactCountsReader, ContactLinkEraser } from '@app/contacts';
import { WorkspacesModule } from '@app/workspaces';
import { metricsEntities } from './entities';
import { EventPartitions } from './events/event-partitions';
import { EventRetention, EventRetentionJob } from './events/event-retention';
import { EventContactLinks } from './events/forget-contact';
import { EventsController } from './events/events.controller';
import { ContactConversions } from './events/contact-conversions';
import { SessionSummaryReader } from './events/session-summary.reader';
import { CompanyWriters } from './events/company-writers';
import { EventsService } from './events/events.service';
import { IngestionActivity } from './events/ingestion-activity';
import { IngestionMetrics } from './events/ingestion.metrics';
import { FunnelDescriptionsService } from './funnels/funnel-descriptions.service';
import { FunnelsController } from './funnels/funnels.controller';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { RollupReader } from './rollups/rollup-reader';
import { SegmentFoldMetrics } from './segments/segment-fold.metrics';
import { SegmentFolder, SegmentFolderJob } from './segments/segment-folder';
import { StepFunnelReader } from './steps/step-funnel-reader';
import { StepFunnelsService } from './steps/step-funnels.service';
import { StepKeyNumbers } from './steps/step-marks';

/**
 * Tracking events in; charts, KPIs, insights and funnel descriptions out. Used by the HTTP app,
 * MCP tools and the admin CLI. Global so ContactsService finds the ContactLinkEraser port (which
 * contacts owns) without contacts importing metrics.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature(metricsEntities), WorkspacesModule],
  controllers: [EventsController, MetricsController, FunnelsController],
  providers: [
    EventsService,
    CompanyWriters,
    ContactConversions,
    SessionSummaryReader,
    EventPartitions,
    EventRetention,
    IngestionActivity,
    IngestionMetrics,
    MetricsService,
    RollupReader,
    SegmentFolder,
    SegmentFoldMetrics,
    StepFunnelsService,
    StepFunnelReader,
    StepKeyNumbers,
    // Contacts' reader of the CRM counts; it needs only the data source, so the module of
    // contacts (and what it imports) stays out of the metrics.
    ContactCountsReader,
    FunnelDescriptionsService,
    { provide: ContactLinkEraser, useClass: EventContactLinks },
  ],
  exports: [
    EventsService,
    ContactConversions,
    SessionSummaryReader,
    MetricsService,
    StepFunnelsService,
    FunnelDescriptionsService,
    ContactLinkEraser,
    EventRetention,
    SegmentFolder,
  ],
})
export class MetricsModule {}

/** Drops raw event partitions past EVENT_RETENTION_MONTHS periodically (the HTTP app only). */
@Module({ providers: [EventRetentionJob] })
export class EventRetentionModule {}

/** Folds raw sessions and events into the segment rollups in the background (the HTTP app only). */
@Module({ providers: [SegmentFolderJob] })
export class SegmentFolderModule {}
