export { createFunnelCrmClient } from './client';
export type { FunnelCrmClient, FunnelCrmClientOptions } from './client';
export { retryingFetch } from './retrying-fetch';
export type { RetryEvent, RetryOptions } from './retrying-fetch';
export { retryAfterMs } from './retry-after';
export type { components, operations, paths } from './schema';
