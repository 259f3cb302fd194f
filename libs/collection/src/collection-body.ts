import type { LargerBodyRoute } from '@app/core';
import { MAX_BROWSER_BODY_BYTES } from './collect.service';

/**
 * The public routes' bodies have a limit of their own, below the general one: a page sends a few
 * events or one form at a time.
 */
export const COLLECTION_BODY: LargerBodyRoute = {
  path: /^\/v1\/funnels\/[^/?]+\/(?:collect|submissions)\/?(?:\?|$)/,
  limit: `${MAX_BROWSER_BODY_BYTES / 1024}kb`,
  maxInFlight: 16,
};
