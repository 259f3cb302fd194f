import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { refusedAddress } from '@app/core';

export interface SafeFetchLimits {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Whole exchange, redirects included. */
  timeoutMs: number;
  maxRedirects: number;
  /** Loopback and private addresses may be reached (development and tests only). */
  allowPrivateAddresses: boolean;
  /** Checked for the first URL and every redirect target. */
  urlAllowed: (url: URL) => boolean;
}

export interface SafeFetchResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

export class SafeFetchError extends Error {}

// Addresses a URL from a client must never make this server call (SSRF): the rule webhook
// targets follow too, IPv4 embedded in IPv6 judged as itself.
const isPrivate = (address: string) => refusedAddress(address, { allowLoopback: false }) !== undefined;

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup that refuses private addresses, so a public name cannot point inside the network. */
function publicOnlyLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (!addresses.length || addresses.some((a) => isPrivate(a.address)))
      return callback(new SafeFetchError(`${hostname} resolves to a private address`), []);
    if ((options as { all?: boolean }).all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

/**
 * GET a URL a client named, within limits: size, time, redirects (each target checked again) and,
 * outside development, public addresses only. Answers any status; throws SafeFetchError otherwise.
 */
export async function safeFetch(url: URL, limits: SafeFetchLimits): Promise<SafeFetchResponse> {
  const deadline = Date.now() + limits.timeoutMs;
  let current = url;
  for (let hop = 0; ; hop++) {
    if (!limits.urlAllowed(current)) throw new SafeFetchError(`${current.href} is not an allowed URL`);
    const literal = current.hostname.replace(/^\[|\]$/g, '');
    if (!limits.allowPrivateAddresses && isIP(literal) && isPrivate(literal))
      throw new SafeFetchError(`${current.host} is a private address`);
    const response = await getOnce(current, limits, deadline - Date.now());
    const location = response.headers.location;
    if (response.status < 300 || response.status >= 400 || !location) return response;
    if (hop >= limits.maxRedirects) throw new SafeFetchError('too many redirects');
    current = new URL(location, current);
  }
}

function getOnce(url: URL, limits: SafeFetchLimits, timeoutMs: number): Promise<SafeFetchResponse> {
  if (timeoutMs <= 0) return Promise.reject(new SafeFetchError('timed out'));
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // Whatever happens first (an answer, a limit, an error) decides; later events change nothing.
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      request.destroy();
      reject(
        error instanceof SafeFetchError
          ? error
          : new SafeFetchError(error.name === 'AbortError' ? 'timed out' : error.message),
      );
    };
    const request = send(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: limits.allowPrivateAddresses ? undefined : publicOnlyLookup,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxBytes) fail(new SafeFetchError(`larger than ${limits.maxBytes} bytes`));
          else chunks.push(chunk);
        });
        response.on('end', () => {
          if (settled) return;
          settled = true;
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        response.on('error', fail);
      },
    );
    request.on('error', fail);
    request.end();
  });
}
