import createClient, { type Client } from 'openapi-fetch';
import { retryingFetch, type RetryOptions } from './retrying-fetch';
import type { paths } from './schema';

export interface FunnelCrmClientOptions {
  /** Where the service answers, e.g. `https://crm.example.com` (no `/v1`). */
  baseUrl: string;
  /** An API key (`fcrm_…`) holding the permissions of the routes called. */
  apiKey: string;
  /** When and how often a 429, a 503 or a network error is sent again. */
  retry?: RetryOptions;
  /** The fetch to send with (default: the global one). */
  fetch?: typeof fetch;
}

export type FunnelCrmClient = Client<paths>;

/**
 * A client typed from openapi.json: every path, parameter, body and answer of the API, with
 * `x-service-api-key` set and the waits and retries of `retryingFetch`.
 */
export function createFunnelCrmClient(options: FunnelCrmClientOptions): FunnelCrmClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { 'x-service-api-key': options.apiKey },
    fetch: retryingFetch(options.retry, options.fetch),
  });
}
