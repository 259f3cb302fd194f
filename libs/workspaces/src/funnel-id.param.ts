import { ApiParam } from '@nestjs/swagger';

/** Swagger for the `funnelId` path parameter every funnel route shares. */
export const ApiFunnelIdParam = () =>
  ApiParam({
    name: 'funnelId',
    format: 'uuid',
    description: 'A campaign id from GET /v1/workspaces. Not a UUID: 400; unknown or another company’s: 404.',
  });

/** The 404 of a route under a funnel: one answer whether the funnel is missing or another company's. */
export const FUNNEL_NOT_FOUND = {
  description: 'The funnel does not exist or belongs to another company',
  examples: ['Funnel not found'],
};
