import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiFunnelIdParam } from '@app/workspaces';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { ApiErrorResponse } from '@app/core';
import { FunnelDescriptionResponse } from './funnel-description.dto';
import { FunnelDescriptionsService } from './funnel-descriptions.service';

@ApiTags('Funnels')
@Controller({ path: 'funnels', version: '1' })
export class FunnelsController {
  constructor(private readonly descriptions: FunnelDescriptionsService) {}

  @Get(':funnelId')
  @RequirePermissions('crm:read')
  @ApiOperation({
    summary: 'Get a funnel',
    description:
      'One funnel (campaign) of the key’s company with what its contacts and metrics refer to: the ' +
      'contact statuses (status values of contacts), the pages in funnel order (keys of the page ' +
      'charts) and the question ids seen in its answer events with their latest titles (insightId ' +
      'of the insights route).',
  })
  @ApiFunnelIdParam()
  @ApiOkResponse({ type: FunnelDescriptionResponse })
  @ApiErrorResponse(400, 'funnelId is not a UUID', 'funnelId must be a UUID')
  @ApiErrorResponse(404, 'The funnel does not exist or belongs to another company', 'Funnel not found')
  async get(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
  ): Promise<FunnelDescriptionResponse> {
    return { data: await this.descriptions.describeForCompany(companyId, funnelId) };
  }
}
