import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiErrorResponses } from '@app/core';
import { PUBLIC_RATE_LIMIT_PER_MINUTE } from '@app/core/http/rate-limit/rate-limit.constants';

export const IS_PUBLIC = 'auth:public';

/**
 * Opts a route out of API-key authentication (OAuth discovery, health); such routes are rate
 * limited per client address instead, which the decorator also documents in Swagger.
 */
export const Public = () =>
  applyDecorators(
    SetMetadata(IS_PUBLIC, true),
    ApiErrorResponses({
      429: {
        description: `More than ${PUBLIC_RATE_LIMIT_PER_MINUTE} requests a minute from this client address`,
      },
    }),
  );
