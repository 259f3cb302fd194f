import { ApiProperty } from '@nestjs/swagger';
import { FUNNEL_STATUSES, type FunnelStatus } from '../entities/funnel.entity';

export class WorkspaceCampaignView {
  @ApiProperty({ description: 'The funnel id (use it as funnelId)', format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Lead magnet funnel' })
  name: string;

  @ApiProperty({ enum: FUNNEL_STATUSES, description: 'online (published) or offline (not yet live)' })
  status: FunnelStatus;
}

export class WorkspaceView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Marketing' })
  name: string;

  @ApiProperty({ type: [WorkspaceCampaignView] })
  campaigns: WorkspaceCampaignView[];
}

export class WorkspaceListResponse {
  @ApiProperty({ type: [WorkspaceView] })
  data: WorkspaceView[];
}
