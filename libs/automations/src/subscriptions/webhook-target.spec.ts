import { validateEnv } from '@app/core';
import { addressProblem, checkTargetUrl, resolveTarget, TargetRefusedError } from './webhook-target';

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
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.1.1', 'private'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['224.0.0.1', 'non-public (multicast)'],
  ])('refuses %s as %s', (address, problem) => expect(addressProblem(address, development)).toBe(problem));

  it('allows loopback only with the development allowance, and public addresses always', () => {
    expect(addressProblem('127.0.0.1', { production: false, allowLoopback: true })).toBeUndefined();
    expect(addressProblem('10.0.0.1', { production: false, allowLoopback: true })).toBe('private');
    expect(addressProblem('93.184.216.34', production)).toBeUndefined();
    expect(addressProblem('2606:4700::1111', production)).toBeUndefined();
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
