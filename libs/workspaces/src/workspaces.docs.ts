import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { WorkspaceListResponse } from './dto/workspace.dto';

export const ListWorkspacesDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'List workspaces',
      description: "All workspaces of the API key's company, each with its campaigns (funnels).",
    }),
    ApiOkResponse({ type: WorkspaceListResponse }),
  );
