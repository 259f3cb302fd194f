import { ApiParam } from '@nestjs/swagger';

/** Swagger for the `funnelId` path parameter every funnel route shares. */
export const ApiFunnelIdParam = () =>
  ApiParam({
    name: 'funnelId',
    format: 'uuid',
    description: 'A campaign id from GET /v1/workspaces. Not a UUID: 400; unknown or another company’s: 404.',
  });
