import { applyDecorators, SetMetadata } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { API_THROTTLER, ApiErrorResponses, PUBLIC_THROTTLER, PUBLIC_RATE_LIMIT_PER_MINUTE } from '@app/core';

export const IS_PUBLIC = 'auth:public';

/**
 * Opts a route out of API-key authentication (OAuth discovery, health); such routes are rate
 * limited per client address instead, which the decorator also documents in Swagger. With
 * `rateLimited: false` (health probes) the route is never counted and documents no 429.
 */
export const Public = ({ rateLimited = true }: { rateLimited?: boolean } = {}) =>
  applyDecorators(
    SetMetadata(IS_PUBLIC, true),
    rateLimited
      ? ApiErrorResponses({
          429: {
            description: `More than ${PUBLIC_RATE_LIMIT_PER_MINUTE} requests a minute from this client address`,
          },
        })
      : SkipThrottle({ [API_THROTTLER]: true, [PUBLIC_THROTTLER]: true }),
  );
