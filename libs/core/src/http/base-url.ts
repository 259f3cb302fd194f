import type { IncomingHttpHeaders } from 'node:http';
import type { EnvironmentVariables } from '../config/env.validation';

export interface BaseUrlRequest {
  headers: IncomingHttpHeaders;
  /** `encrypted` is set on TLS connections (node's TLSSocket). */
  socket?: { encrypted?: boolean } | object;
}

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

const firstValue = (value: string | string[] | undefined): string | undefined =>
  (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim() || undefined;

/**
 * The public base URL ({base_url}) used in OAuth metadata and `WWW-Authenticate`: `BASE_URL` when
 * configured, else the request's scheme and host. Forwarded headers count only with
 * `TRUST_PROXY=true`, so a direct caller cannot make the service advertise another origin.
 * Returns undefined for a Host header that is not a host name.
 */
export function publicBaseUrl(
  request: BaseUrlRequest,
  env: Pick<EnvironmentVariables, 'BASE_URL' | 'TRUST_PROXY'>,
): string | undefined {
  if (env.BASE_URL) return env.BASE_URL.replace(/\/+$/, '');
  const forwarded = env.TRUST_PROXY;
  const proto =
    (forwarded && firstValue(request.headers['x-forwarded-proto'])) ||
    (isEncrypted(request) ? 'https' : 'http');
  const host = (forwarded && firstValue(request.headers['x-forwarded-host'])) || request.headers.host;
  if (!host || !HOST.test(host) || !['http', 'https'].includes(proto)) return undefined;
  return `${proto}://${host}`;
}

const isEncrypted = (request: BaseUrlRequest): boolean =>
  Boolean((request.socket as { encrypted?: boolean } | undefined)?.encrypted);
