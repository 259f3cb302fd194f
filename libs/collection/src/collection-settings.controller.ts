import { applyDecorators, Body, Controller, Param, Patch } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { ApiErrorResponses, ValidationError } from '@app/core';
import { CollectionSettingsView, FunnelDescriptionResponse, FunnelDescriptionsService } from '@app/metrics';
import { ApiFunnelIdParam, FunnelsService } from '@app/workspaces';

class ChangeFunnelRequest {
  @ApiProperty({
    type: CollectionSettingsView,
    description: 'Members left out keep their value; enabled needs at least one allowed origin',
  })
  collection: CollectionSettingsView;
}

const ChangeFunnelDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Change a funnel’s browser collection',
      description:
        'Turns the tracker and the lead form on or off for the funnel and sets the origins whose pages may use them ' +
        '(https://host[:port]; http://localhost, 127.0.0.1 or [::1] outside production). Answers the funnel as GET shows it.',
    }),
    ApiFunnelIdParam(),
    ApiBody({ type: ChangeFunnelRequest }),
    ApiOkResponse({ type: FunnelDescriptionResponse }),
    ApiErrorResponses({
      400: {
        description: 'An origin that is not one, enabled without an origin, or another member',
        examples: ['collection.allowedOrigins[0] must be an origin https://host[:port]'],
      },
      404: {
        description: 'The funnel does not exist or belongs to another company',
        examples: ['Funnel not found'],
      },
    }),
  );

@ApiTags('Funnels')
@Controller({ path: 'funnels', version: '1' })
export class CollectionSettingsController {
  constructor(
    private readonly funnels: FunnelsService,
    private readonly descriptions: FunnelDescriptionsService,
  ) {}

  @Patch(':funnelId')
  @RequirePermissions('crm:write')
  @ChangeFunnelDocs()
  async change(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    // Checked by the settings' rule (changeCollectionSettings), which names each problem.
    @Body() body: unknown,
  ): Promise<FunnelDescriptionResponse> {
    const members = typeof body === 'object' && body !== null ? Object.keys(body) : [];
    await this.funnels.changeCollection(companyId, funnelId, funnelChange(body, members));
    return { data: await this.descriptions.describeForCompany(companyId, funnelId) };
  }
}

/** The `collection` member of a funnel change, the only one that can be changed. */
function funnelChange(body: unknown, members: string[]): unknown {
  const other = members.find((m) => m !== 'collection');
  if (other || !members.length) {
    const problem = other ? `${other} cannot be changed` : 'the body must be {"collection": {...}}';
    throw new ValidationError(problem, [problem]);
  }
  return (body as { collection: unknown }).collection;
}
