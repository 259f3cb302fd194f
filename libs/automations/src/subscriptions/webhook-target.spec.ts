import { validateEnv } from '@app/core';
import { checkTargetUrl, resolveTarget, TargetRefusedError } from './webhook-target';

const production = { production: true, allowLoopback: false };
const development = { production: false, allowLoopback: false };

describe('webhook targets', () => {
  it('takes https only in production', () => {
    expect(() => checkTargetUrl('http://93.184.216.34/h', production)).toThrow(
      new TargetRefusedError('targetUrl must be https'),
    );
    expect(checkTargetUrl('https://93.184.216.34/h', production).hostname).toBe('93.184.216.34');
    expect(checkTargetUrl('http://93.184.216.34/h', development).protocol).toBe('http:');
  });

  it.each([
    'http://[::169.254.169.254]/latest/meta-data',
    'http://[::127.0.0.1]/h',
    'http://[::ffff:10.0.0.1]/h',
    'http://[64:ff9b::a9fe:a9fe]/h',
    'http://[2002:7f00:1::]/h',
    'http://[64:ff9b:1::8.8.8.8]/h',
  ])('refuses %s, an IPv4 address it must not reach written as IPv6', async (url) => {
    await expect(resolveTarget(url, development)).rejects.toThrow(TargetRefusedError);
  });

  it('takes a public IPv4 address however it is written', async () => {
    for (const url of [
      'http://93.184.216.34/h',
      'http://[::ffff:93.184.216.34]/h',
      'http://[64:ff9b::5db8:d822]/h',
    ])
      expect((await resolveTarget(url, development)).url.href).toBe(new URL(url).href);
  });

  it('resolves a name once and answers the address to pin', async () => {
    const target = await resolveTarget('http://localhost:8080/h', { production: false, allowLoopback: true });
    expect(['127.0.0.1', '::1']).toContain(target.address);
    expect(target.url.host).toBe('localhost:8080');
  });

  it('refuses the loopback allowance in production at startup', () => {
    expect(() =>
      validateEnv({
        NODE_ENV: 'production',
        WEBHOOK_ALLOW_LOOPBACK_TARGETS: 'true',
        DATABASE_URL: 'postgres://x@db/x',
        IDP_URL: 'https://idp.example.com',
        OAUTH_CLIENT_ID: 'c',
        OAUTH_AUDIENCE: 'a',
        OAUTH_CLAIM_NAMESPACE: 'https://ns.example.com',
      }),
    ).toThrow(/WEBHOOK_ALLOW_LOOPBACK_TARGETS is for development and tests only/);
  });
});
