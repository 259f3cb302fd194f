import { createHash, randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CompaniesService } from '@app/auth';
import { validateEnv } from '@app/core';
import { databaseDevUser, DEV_OAUTH_DEFAULTS, resolveIdentityProvider } from '@app/dev-idp';
import { startTestApp, TestApp } from '../support/app';
import { followAuthorization } from '../support/oauth-browser';

// Booting real apps on a loaded machine can take longer than jest's default 5 s.
jest.setTimeout(60_000);

describe('Development identity provider', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  describe(databaseDevUser.name, () => {
    it('finds nobody in an empty database, then the oldest company, or the configured one', async () => {
      expect(await databaseDevUser(t.databaseUrl)()).toBeUndefined();
      const first = await t.app.get(CompaniesService).create('First', 'sub_first');
      const second = await t.app.get(CompaniesService).create('Second', 'sub_second');
      expect(await databaseDevUser(t.databaseUrl)()).toEqual({
        companyId: first.id,
        subscriptionId: 'sub_first',
      });
      expect(await databaseDevUser(t.databaseUrl, second.id)()).toEqual({
        companyId: second.id,
        subscriptionId: 'sub_second',
      });
      expect(await databaseDevUser(t.databaseUrl, '00000000-0000-4000-8000-000000000000')()).toBeUndefined();
    });
  });

  describe(resolveIdentityProvider.name, () => {
    const log = jest.fn();

    it('uses a configured IDP_URL as is and starts nothing', async () => {
      const env = validateEnv({
        IDP_URL: 'https://tenant.idp.example',
        OAUTH_CLIENT_ID: 'c',
        OAUTH_AUDIENCE: 'a',
        OAUTH_CLAIM_NAMESPACE: 'n',
      });
      const resolved = await resolveIdentityProvider(env, t.databaseUrl, log);
      expect(resolved.variables).toEqual({});
      await resolved.close();
    });

    it('starts the development provider on loopback with development defaults when IDP_URL is unset', async () => {
      const env = validateEnv({ NODE_ENV: 'development', DEV_IDP_PORT: '0' });
      const resolved = await resolveIdentityProvider(env, t.databaseUrl, log);
      try {
        expect(resolved.variables).toEqual({
          IDP_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
          ...DEV_OAUTH_DEFAULTS,
        });
        const jwks = await fetch(`${resolved.variables.IDP_URL}/.well-known/jwks.json`);
        const { keys } = (await jwks.json()) as { keys: { kty: string; alg: string; d?: string }[] };
        expect(keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256' })]);
        expect(keys[0].d).toBeUndefined();
      } finally {
        await resolved.close();
      }
    });

    it('keeps configured OAuth settings and takes a free port when DEV_IDP_PORT is busy', async () => {
      const busy: Server = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      const port = (busy.address() as AddressInfo).port;
      const env = validateEnv({
        NODE_ENV: 'development',
        DEV_IDP_PORT: String(port),
        OAUTH_AUDIENCE: 'mine',
      });
      const resolved = await resolveIdentityProvider(env, t.databaseUrl, log);
      try {
        expect(resolved.variables.OAUTH_AUDIENCE).toBe('mine');
        expect(new URL(resolved.variables.IDP_URL).port).not.toBe(String(port));
        expect(log).toHaveBeenCalledWith(expect.stringContaining(`DEV_IDP_PORT ${port} is in use`));
      } finally {
        await resolved.close();
        await new Promise((resolve) => busy.close(resolve));
      }
    });
  });

  describe('authorization', () => {
    it('refuses a redirect URI that is not on loopback', async () => {
      const env = validateEnv({ NODE_ENV: 'development', DEV_IDP_PORT: '0' });
      const resolved = await resolveIdentityProvider(env, t.databaseUrl, jest.fn());
      try {
        const query = new URLSearchParams({
          client_id: DEV_OAUTH_DEFAULTS.OAUTH_CLIENT_ID,
          redirect_uri: 'https://attacker.example/callback',
          response_type: 'code',
          code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
          code_challenge_method: 'S256',
        });
        const res = await fetch(`${resolved.variables.IDP_URL}/authorize?${query}`, { redirect: 'manual' });
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
      } finally {
        await resolved.close();
      }
    });

    it('requires PKCE', async () => {
      const env = validateEnv({ NODE_ENV: 'development', DEV_IDP_PORT: '0' });
      const resolved = await resolveIdentityProvider(env, t.databaseUrl, jest.fn());
      try {
        const redirect = 'http://127.0.0.1:9/callback';
        const query = new URLSearchParams({
          client_id: DEV_OAUTH_DEFAULTS.OAUTH_CLIENT_ID,
          redirect_uri: redirect,
          response_type: 'code',
          state: 's',
        });
        const back = await followAuthorization(
          new URL(`${resolved.variables.IDP_URL}/authorize?${query}`),
          redirect,
          () => undefined,
        );
        expect(back.searchParams.get('error')).toBe('invalid_request');
        expect(back.searchParams.get('error_description')).toMatch(/PKCE/);
      } finally {
        await resolved.close();
      }
    });
  });
});
