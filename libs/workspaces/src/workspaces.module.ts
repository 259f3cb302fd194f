import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { workspaceEntities } from './entities';
import { FunnelsService } from './funnels.service';
import { WorkspacesController } from './workspaces.controller';
import { WorkspacesService } from './workspaces.service';

/** Workspaces and funnels, shared by the HTTP app, the MCP tools and the admin CLI. */
@Module({
  imports: [TypeOrmModule.forFeature(workspaceEntities), AuthModule],
  controllers: [WorkspacesController],
  providers: [WorkspacesService, FunnelsService],
  exports: [WorkspacesService, FunnelsService],
})
export class WorkspacesModule {}
