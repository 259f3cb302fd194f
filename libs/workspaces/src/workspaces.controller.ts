import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { AnswersJsonText } from '@app/core';
import { ListWorkspacesDocs } from './workspaces.docs';
import { WorkspacesService } from './workspaces.service';

@ApiTags('Workspaces')
@Controller({ path: 'workspaces', version: '1' })
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Get()
  @RequirePermissions('crm:read')
  @ListWorkspacesDocs()
  // A WorkspaceListResponse, serialised once per change of the list.
  @AnswersJsonText()
  list(@CurrentCompany() companyId: string): Promise<string> {
    return this.workspaces.listJson(companyId);
  }
}
