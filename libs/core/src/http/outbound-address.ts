import ipaddr from 'ipaddr.js';

/** Which addresses a URL a client names may make this server connect to (SSRF). */
export interface OutboundAddressPolicy {
  /** Development and tests only: loopback addresses may be reached. */
  allowLoopback: boolean;
}

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

// 64:ff9b:1::/48 is for NAT64 inside one network (RFC 8215): private whatever it embeds.
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48') as [ipaddr.IPv6, number];

/**
 * Why the server must not connect to an address, or undefined when it is a public one. Loopback
 * (unless allowed), private, link-local, unique-local, carrier-grade NAT, reserved, multicast and
 * metadata addresses are refused. An IPv6 address that carries an IPv4 one (IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`,
 * 6to4 `2002:aabb:ccdd::`) is judged as that IPv4 address, since that is where it leads; Teredo
 * tunnels and local-use NAT64 are refused outright.
 */
export function refusedAddress(address: string, policy: OutboundAddressPolicy): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'malformed';
  }
  if (parsed.kind() === 'ipv6') {
    const ipv6 = parsed as ipaddr.IPv6;
    if (ipv6.match(LOCAL_NAT64)) return 'private';
    parsed = embeddedIpv4(ipv6) ?? ipv6;
  }
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString()) || METADATA_ADDRESSES.has(parsed.toString()))
    return 'cloud metadata';
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback') return policy.allowLoopback ? undefined : 'loopback';
  if (range === 'linkLocal') return 'link-local';
  if (range === 'private' || range === 'uniqueLocal' || range === 'carrierGradeNat') return 'private';
  return `non-public (${range})`;
}

/** The IPv4 address an IPv6 one carries where the network would deliver it, if any. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') return ipv4(parts[6], parts[7]);
  if (range === '6to4') return ipv4(parts[1], parts[2]);
  // IPv4-compatible (deprecated, RFC 4291): 96 zero bits; :: and ::1 are IPv6's own.
  const compatible = parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7] > 1);
  return compatible ? ipv4(parts[6], parts[7]) : undefined;
}
