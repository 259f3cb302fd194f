import { refusedAddress } from './outbound-address';

const strict = { allowLoopback: false };
const development = { allowLoopback: true };

describe(refusedAddress.name, () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.1.1', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fe80::1', 'link-local'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['168.63.129.16', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['0.0.0.0', 'non-public (unspecified)'],
    ['::', 'non-public (unspecified)'],
    ['224.0.0.1', 'non-public (multicast)'],
    ['ff02::1', 'non-public (multicast)'],
    ['not-an-address', 'malformed'],
  ])('refuses %s as %s', (address, problem) => expect(refusedAddress(address, strict)).toBe(problem));

  // Every way IPv6 carries an IPv4 address, each with a refused IPv4 address in it.
  it.each([
    ['IPv4-mapped', '::ffff:127.0.0.1', 'loopback'],
    ['IPv4-mapped, hex', '::ffff:7f00:1', 'loopback'],
    ['IPv4-mapped, expanded', '0:0:0:0:0:ffff:a9fe:a9fe', 'cloud metadata'],
    ['IPv4-mapped', '::ffff:10.0.0.1', 'private'],
    ['IPv4-compatible', '::127.0.0.1', 'loopback'],
    ['IPv4-compatible', '::169.254.169.254', 'cloud metadata'],
    ['IPv4-compatible, hex', '::a9fe:a9fe', 'cloud metadata'],
    ['IPv4-compatible', '::192.168.0.1', 'private'],
    ['IPv4-compatible', '::0.0.0.2', 'non-public (unspecified)'],
    ['SIIT (RFC 6145)', '::ffff:0:127.0.0.1', 'loopback'],
    ['NAT64 well-known prefix', '64:ff9b::127.0.0.1', 'loopback'],
    ['NAT64 well-known prefix', '64:ff9b::a9fe:a9fe', 'cloud metadata'],
    ['NAT64 well-known prefix', '64:ff9b::10.0.0.1', 'private'],
    ['NAT64 local-use prefix', '64:ff9b:1::8.8.8.8', 'private'],
    ['NAT64 local-use prefix', '64:ff9b:1:ffff::1', 'private'],
    ['6to4', '2002:7f00:1::', 'loopback'],
    ['6to4', '2002:a9fe:a9fe::1', 'cloud metadata'],
    ['6to4', '2002:c0a8:101:1::1', 'private'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'non-public (teredo)'],
  ])('refuses %s %s as %s', (_, address, problem) => {
    expect(refusedAddress(address, strict)).toBe(problem);
  });

  it('judges a public IPv4 address the same however IPv6 carries it', () => {
    for (const address of [
      '93.184.216.34',
      '::ffff:93.184.216.34',
      '::93.184.216.34',
      '64:ff9b::93.184.216.34',
      '2002:5db8:d822::1',
      '2606:4700::1111',
    ])
      expect(refusedAddress(address, strict)).toBeUndefined();
  });

  it('allows loopback, however written, only with the development allowance', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '::127.0.0.1', '64:ff9b::7f00:1'])
      expect(refusedAddress(address, development)).toBeUndefined();
    expect(refusedAddress('::ffff:10.0.0.1', development)).toBe('private');
    expect(refusedAddress('::169.254.169.254', development)).toBe('cloud metadata');
  });
});
