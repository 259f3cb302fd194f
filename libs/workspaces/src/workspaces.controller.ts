import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { WorkspaceListResponse } from './dto/workspace.dto';
import { WorkspacesService } from './workspaces.service';

@ApiTags('Workspaces')
@Controller({ path: 'workspaces', version: '1' })
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Get()
  @RequirePermissions('crm:read')
  @ApiOperation({
    summary: 'List workspaces',
    description: "All workspaces of the API key's company, each with its campaigns (funnels).",
  })
  @ApiOkResponse({ type: WorkspaceListResponse })
  async list(@CurrentCompany() companyId: string): Promise<WorkspaceListResponse> {
    return { data: await this.workspaces.listForCompany(companyId) };
  }
}
