import type { LargerBodyRoute } from '@app/core';

/**
 * Tracking-event batches (up to 1000 events) are the one body allowed over the general limit; 16
 * of those at once per process keep the heap within its bound (docs/DEPLOYING.md), more get 503.
 */
export const EVENT_BATCH_BODY: LargerBodyRoute = {
  path: /^\/v1\/funnels\/[^/?]+\/events\/?(?:\?|$)/,
  limit: '1mb',
  maxInFlight: 16,
};
