import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { ContactsModule } from '@app/contacts';
import { MetricsModule } from '@app/metrics';
import { WorkspacesModule } from '@app/workspaces';
import { CollectService } from './collect.service';
import { CollectionController } from './collection.controller';
import { CollectionDoor } from './collection-door';
import { CollectionLimits } from './collection-limits';
import { CollectionSettingsController } from './collection-settings.controller';
import { collectionEntities } from './entities';
import { SessionLinks } from './session-links';
import { SessionMeta } from './session-meta';
import { SubmissionsService } from './submissions.service';
import { TrackerController } from './tracker/tracker.controller';
import { VisitorIds } from './visitor-ids';

/** Browser collection: the tracker, the public collect and submissions routes, and their settings. */
@Module({
  imports: [
    TypeOrmModule.forFeature(collectionEntities),
    AuthModule,
    WorkspacesModule,
    ContactsModule,
    MetricsModule,
  ],
  controllers: [CollectionController, CollectionSettingsController, TrackerController],
  providers: [
    CollectService,
    CollectionDoor,
    CollectionLimits,
    SessionLinks,
    SessionMeta,
    SubmissionsService,
    VisitorIds,
  ],
})
export class CollectionModule {}
