import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { WorkspaceListResponse } from './dto/workspace.dto';
import { ListWorkspacesDocs } from './workspaces.docs';
import { WorkspacesService } from './workspaces.service';

@ApiTags('Workspaces')
@Controller({ path: 'workspaces', version: '1' })
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Get()
  @RequirePermissions('crm:read')
  @ListWorkspacesDocs()
  async list(@CurrentCompany() companyId: string): Promise<WorkspaceListResponse> {
    return { data: await this.workspaces.listForCompany(companyId) };
  }
}
