import { Global, Module } from '@nestjs/common';
import { ContactLinkEraser } from '@app/contacts';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkspacesModule } from '@app/workspaces';
import { ChartsService } from './charts.service';
import { metricsEntities } from './entities';
import { EventPartitions } from './events/event-partitions';
import { EventContactLinks } from './events/forget-contact';
import { EventsController } from './events/events.controller';
import { EventsService } from './events/events.service';
import { IngestionMetrics } from './events/ingestion.metrics';
import { FunnelDescriptionsService } from './funnels/funnel-descriptions.service';
import { FunnelsController } from './funnels/funnels.controller';
import { KpisService } from './kpis.service';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { CrmCounts } from './rollups/crm-counts';
import { RollupReader } from './rollups/rollup-reader';

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
    EventPartitions,
    IngestionMetrics,
    MetricsService,
    ChartsService,
    KpisService,
    RollupReader,
    CrmCounts,
    FunnelDescriptionsService,
    { provide: ContactLinkEraser, useClass: EventContactLinks },
  ],
  exports: [EventsService, MetricsService, FunnelDescriptionsService, ContactLinkEraser],
})
export class MetricsModule {}
