export * from './dto/workspace.dto';
export * from './entities';
export * from './funnels.service';
export * from './workspaces.module';
export * from './workspaces.service';
export * from './funnel-id.param';
export * from './funnel-ownership.sql';
export * from './collection-settings';
