import { Controller, Get, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { FunnelDescriptionResponse } from './funnel-description.dto';
import { FunnelDescriptionsService } from './funnel-descriptions.service';
import { GetFunnelDocs } from './funnels.docs';

@ApiTags('Funnels')
@Controller({ path: 'funnels', version: '1' })
export class FunnelsController {
  constructor(private readonly descriptions: FunnelDescriptionsService) {}

  @Get(':funnelId')
  @RequirePermissions('crm:read')
  @GetFunnelDocs()
  async get(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
  ): Promise<FunnelDescriptionResponse> {
    return { data: await this.descriptions.describeForCompany(companyId, funnelId) };
  }
}
