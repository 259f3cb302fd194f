import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { refusedAddress } from '@app/core';

/** Where a REST hook may be delivered. */
export interface TargetPolicy {
  /** Production: https only. */
  production: boolean;
  /**
   * Development and tests only (WEBHOOK_ALLOW_LOOPBACK_TARGETS, refused at startup in production):
   * loopback addresses are allowed, so a receiver on the same machine can be used. Private,
   * link-local and cloud-metadata addresses stay refused.
   */
  allowLoopback: boolean;
}

/** The address a delivery connects to, resolved once and pinned for that delivery. */
export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** A target the policy refuses; the message is safe to show and store (no resolved address). */
export class TargetRefusedError extends Error {}

const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data']);

/** Checks what the URL alone shows: scheme, credentials, a metadata host name. */
export function checkTargetUrl(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError('targetUrl must be an absolute http(s) URL');
  }
  const schemes = policy.production ? ['https:'] : ['https:', 'http:'];
  if (!schemes.includes(url.protocol))
    throw new TargetRefusedError(policy.production ? 'targetUrl must be https' : 'targetUrl must be http(s)');
  if (url.username || url.password) throw new TargetRefusedError('targetUrl must not carry credentials');
  const host = hostOf(url).toLowerCase().replace(/\.$/, '');
  if (METADATA_HOSTS.has(host)) throw new TargetRefusedError('targetUrl names a cloud metadata service');
  return url;
}

/**
 * Resolves the target's host once and checks every address it resolves to (see refusedAddress:
 * IPv4 embedded in IPv6 judged as itself), so the service cannot be pointed at its own network. The
 * delivery then connects to the returned address, whatever the name resolves to a moment later.
 */
export async function resolveTarget(raw: string, policy: TargetPolicy): Promise<ResolvedTarget> {
  const url = checkTargetUrl(raw, policy);
  const host = hostOf(url);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new TargetRefusedError('targetUrl host does not resolve');
    }
  }
  if (!addresses.length) throw new TargetRefusedError('targetUrl host does not resolve');
  for (const { address } of addresses) {
    const problem = refusedAddress(address, policy);
    if (problem) throw new TargetRefusedError(`targetUrl resolves to a ${problem} address`);
  }
  const [first] = addresses;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

// URL.hostname keeps the brackets of an IPv6 literal.
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}
