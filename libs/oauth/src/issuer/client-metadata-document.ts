import { SafeFetchError, safeFetch } from './safe-fetch';

/** A client as the authorization server knows it, however it registered. */
export interface OAuthClientInfo {
  clientId: string;
  clientName?: string;
  redirectUris: string[];
}

export class ClientRejectedError extends Error {}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export const isLoopbackHttpUrl = (url: URL): boolean =>
  url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);

/**
 * Whether a client_id names a Client ID Metadata Document: an https URL with a path, no fragment,
 * credentials or dot segments. Plain http only on loopback, and only when `allowLoopback`.
 */
export function metadataDocumentUrl(clientId: string, allowLoopback: boolean): URL | undefined {
  if (!/^https?:\/\//i.test(clientId)) return undefined;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return undefined;
  }
  const secure = url.protocol === 'https:' || (allowLoopback && isLoopbackHttpUrl(url));
  const rawPath = clientId.replace(/^https?:\/\/[^/]*/i, '').split('?')[0];
  const clean = !url.username && !url.password && !clientId.includes('#') && !/\/\.\.?(\/|$)/.test(rawPath);
  return secure && clean && url.pathname.length > 1 ? url : undefined;
}

const MAX_DOCUMENT_BYTES = 5 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
const MAX_REDIRECTS = 3;
const DEFAULT_TTL_MS = 5 * 60_000;
const MAX_TTL_MS = 60 * 60_000;
const MAX_CACHED = 1_000;

/**
 * Client ID Metadata Documents: fetched within limits, checked (its `client_id` is its own URL,
 * public client, redirect URIs listed) and cached for their max-age (5 minutes by default, at most
 * an hour). Failures are not cached, so a fixed document is picked up on the next attempt.
 */
export class ClientMetadataDocuments {
  private readonly cache = new Map<string, { client: OAuthClientInfo; until: number }>();

  constructor(private readonly allowLoopback: boolean) {}

  async resolve(url: URL): Promise<OAuthClientInfo> {
    const cached = this.cache.get(url.href);
    if (cached && cached.until > Date.now()) return cached.client;
    this.cache.delete(url.href);

    const response = await safeFetch(url, {
      maxBytes: MAX_DOCUMENT_BYTES,
      timeoutMs: FETCH_TIMEOUT_MS,
      maxRedirects: MAX_REDIRECTS,
      allowPrivateAddresses: this.allowLoopback,
      urlAllowed: (target) =>
        target.protocol === 'https:' || (this.allowLoopback && isLoopbackHttpUrl(target)),
    }).catch((error: unknown) => {
      const reason = error instanceof SafeFetchError ? error.message : 'fetch failed';
      throw new ClientRejectedError(`client metadata document could not be fetched: ${reason}`);
    });
    if (response.status !== 200)
      throw new ClientRejectedError(`client metadata document answered ${response.status}`);
    const client = parseDocument(response.body, url.href);

    const ttl = maxAgeMs(response.headers['cache-control']);
    if (ttl > 0) {
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(url.href, { client, until: Date.now() + ttl });
    }
    return client;
  }
}

function parseDocument(body: string, clientId: string): OAuthClientInfo {
  let document: Record<string, unknown>;
  try {
    document = JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw new ClientRejectedError('client metadata document is not JSON');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new ClientRejectedError('client metadata document is not a JSON object');
  if (document.client_id !== clientId)
    throw new ClientRejectedError('client metadata document names another client_id than its URL');
  const redirectUris = document.redirect_uris;
  if (
    !Array.isArray(redirectUris) ||
    !redirectUris.length ||
    !redirectUris.every((u) => typeof u === 'string')
  )
    throw new ClientRejectedError('client metadata document has no redirect_uris');
  const method = document.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    throw new ClientRejectedError('only public clients (token_endpoint_auth_method "none") are supported');
  return {
    clientId,
    clientName: typeof document.client_name === 'string' ? document.client_name : undefined,
    redirectUris: redirectUris as string[],
  };
}

function maxAgeMs(cacheControl: string | undefined): number {
  if (/no-store|no-cache/i.test(cacheControl ?? '')) return 0;
  const maxAge = /max-age=(\d+)/i.exec(cacheControl ?? '')?.[1];
  return maxAge === undefined ? DEFAULT_TTL_MS : Math.min(Number(maxAge) * 1000, MAX_TTL_MS);
}
