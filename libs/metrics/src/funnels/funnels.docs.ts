import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrorResponses } from '@app/core';
import { ApiFunnelIdParam } from '@app/workspaces';
import { FunnelDescriptionResponse } from './funnel-description.dto';

export const GetFunnelDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Get a funnel',
      description:
        'One funnel (campaign) of the key’s company with what its contacts and metrics refer to: the ' +
        'contact statuses (status values of contacts), the pages in funnel order (keys of the page ' +
        'charts) and the question ids seen in its answer events with their latest titles (insightId ' +
        'of the insights route).',
    }),
    ApiFunnelIdParam(),
    ApiOkResponse({ type: FunnelDescriptionResponse }),
    ApiErrorResponses({
      400: { description: 'funnelId is not a UUID', examples: ['funnelId must be a UUID'] },
      404: {
        description: 'The funnel does not exist or belongs to another company',
        examples: ['Funnel not found'],
      },
    }),
  );
