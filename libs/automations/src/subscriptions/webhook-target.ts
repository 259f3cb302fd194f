import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

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

// Cloud instance-metadata endpoints. Most sit in ranges refused anyway (link-local, unique-local,
// carrier-grade NAT); Azure's and Oracle's are listed because they look like ordinary addresses.
const METADATA_ADDRESSES = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '169.254.169.123',
  'fd00:ec2::254',
  '100.100.100.200',
  '168.63.129.16',
  '192.0.0.192',
]);
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
 * Resolves the target's host once and checks every address it resolves to: loopback (unless
 * allowed), private, link-local, unique-local, carrier-grade NAT, reserved, multicast and
 * metadata addresses are refused, so the service cannot be pointed at its own network. The
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
    const problem = addressProblem(address, policy);
    if (problem) throw new TargetRefusedError(`targetUrl resolves to a ${problem} address`);
  }
  const [first] = addresses;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** Why an address is refused, or undefined when it is a public one. */
export function addressProblem(address: string, policy: TargetPolicy): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it is.
    parsed = ipaddr.process(address);
  } catch {
    return 'malformed';
  }
  if (METADATA_ADDRESSES.has(parsed.toString()) || METADATA_ADDRESSES.has(address)) return 'cloud metadata';
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback') return policy.allowLoopback ? undefined : 'loopback';
  if (range === 'linkLocal') return 'link-local';
  if (range === 'private' || range === 'uniqueLocal' || range === 'carrierGradeNat') return 'private';
  return `non-public (${range})`;
}

// URL.hostname keeps the brackets of an IPv6 literal.
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}
