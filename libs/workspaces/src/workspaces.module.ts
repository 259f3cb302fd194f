import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { workspaceEntities } from './entities';
import { FunnelsRepository } from './funnels.repository';
import { FunnelsService } from './funnels.service';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

/** Workspaces and funnels, shared by the HTTP app, the MCP tools and the admin CLI. */
@Module({
  imports: [TypeOrmModule.forFeature(workspaceEntities), AuthModule],
  controllers: [WorkspacesController],
  providers: [WorkspacesService, FunnelsService, WorkspacesRepository, FunnelsRepository],
  exports: [WorkspacesService, FunnelsService],
})
export class WorkspacesModule {}
