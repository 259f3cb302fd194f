import { BadRequestException } from '@nestjs/common';
import type { OAuthSettings } from '@app/auth';
import { OAuthProtocolError } from '../oauth-protocol-error';
import type { AuthorizationRepository } from './authorization.repository';
import { AuthorizationService } from './authorization.service';
import { ClientRejectedError } from './client-metadata-document';
import type { ConsentService } from './consent.service';
import type { OAuthClientsService } from './oauth-clients.service';
import { hashSecret, providerCodeVerifier, s256, sealWithCode } from './oauth-secrets';

const issuer = 'https://crm.example';
const settings: OAuthSettings = {
  idpUrl: 'https://idp.example',
  issuer: 'https://idp.example/',
  authorizationEndpoint: 'https://idp.example/authorize',
  tokenEndpoint: 'https://idp.example/oauth/token',
  jwksUri: 'https://idp.example/.well-known/jwks.json',
  revocationEndpoint: 'https://idp.example/oauth/revoke',
  clientId: 'shared-client',
  audience: 'https://crm.example/mcp',
  userMetadataClaim: 'https://crm.example/claims',
};
const client = { clientId: 'client-1', redirectUris: ['http://127.0.0.1:6274/cb'] };
const redirectUri = client.redirectUris[0];
const verifier = 'v'.repeat(43);
const challenge = s256(verifier);

type Pending = Parameters<AuthorizationRepository['savePending']>[0];
type Code = Parameters<AuthorizationRepository['saveCode']>[0];

/** The service over in-memory rows that, like the SQL, hand each row out once. */
function setup() {
  const pending = new Map<string, Pending>();
  const codes = new Map<string, Code & { createdAt: Date }>();
  const repository = {
    savePending: (row: Pending) => void pending.set(row.stateHash, row),
    takePending: (hash: string) => {
      const row = pending.get(hash);
      pending.delete(hash);
      return Promise.resolve(row && row.expiresAt > new Date() ? row : undefined);
    },
    bindRefreshToken: () => Promise.resolve(),
    saveCode: (row: Code) => void codes.set(row.codeHash, { ...row, createdAt: new Date() }),
    takeCode: (hash: string) => {
      const row = codes.get(hash);
      codes.delete(hash);
      return Promise.resolve(row && { ...row, live: row.expiresAt > new Date() });
    },
  } as unknown as AuthorizationRepository;
  const clients = {
    resolve: (id: string) =>
      id === client.clientId
        ? Promise.resolve(client)
        : Promise.reject(new ClientRejectedError('unknown client_id')),
  } as unknown as OAuthClientsService;
  return {
    service: new AuthorizationService(clients, repository, {} as ConsentService),
    pending,
    codes,
  };
}

const authorizeParams = (overrides: Record<string, string | null> = {}) => {
  const values: Record<string, string | null> = {
    client_id: client.clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'client-state',
    ...overrides,
  };
  return new URLSearchParams(
    Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== null),
  );
};

describe(AuthorizationService.name, () => {
  describe('authorize', () => {
    it("sends the browser to the provider with this service's own S256 challenge, derived from the state", async () => {
      const { service, pending } = setup();
      const url = new URL(await service.authorize(authorizeParams(), issuer, settings));
      expect(`${url.origin}${url.pathname}`).toBe(settings.authorizationEndpoint);
      const state = url.searchParams.get('state')!;
      expect(url.searchParams.get('client_id')).toBe(settings.clientId);
      expect(url.searchParams.get('redirect_uri')).toBe(`${issuer}/oauth/callback`);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('code_challenge')).toBe(s256(providerCodeVerifier(state)));
      // The client's challenge is kept for its code exchange, never forwarded.
      expect(url.searchParams.get('code_challenge')).not.toBe(challenge);
      expect(pending.get(hashSecret(state))).toMatchObject({
        clientId: client.clientId,
        redirectUri,
        clientState: 'client-state',
        codeChallenge: challenge,
        issuer,
      });
    });

    it.each<[string, Record<string, string | null>, string, string]>([
      ['no PKCE challenge', { code_challenge: null }, 'invalid_request', 'code_challenge (PKCE) is required'],
      [
        'a challenge too short',
        { code_challenge: 'a'.repeat(42) },
        'invalid_request',
        'code_challenge (PKCE) is required',
      ],
      [
        'the plain method',
        { code_challenge_method: 'plain' },
        'invalid_request',
        'code_challenge_method must be S256',
      ],
      [
        'response_type token',
        { response_type: 'token' },
        'unsupported_response_type',
        'response_type must be code',
      ],
      [
        'another resource',
        { resource: 'https://other.example' },
        'invalid_target',
        'resource must be this service or its /mcp endpoint',
      ],
    ])('answers 400 and never redirects to the client for %s', async (_, overrides, error, description) => {
      const { service, pending } = setup();
      const refusal = service.authorize(authorizeParams(overrides), issuer, settings);
      await expect(refusal).rejects.toThrow(BadRequestException);
      await expect(refusal).rejects.toThrow(`${error}: ${description}`);
      expect(pending.size).toBe(0);
    });

    it.each([
      ['another port', 'http://127.0.0.1:61234/cb'],
      ['no port', 'http://127.0.0.1/cb'],
    ])('accepts the registered loopback redirect URI on %s (RFC 8252 §7.3)', async (_, uri) => {
      const { service, pending } = setup();
      await service.authorize(authorizeParams({ redirect_uri: uri }), issuer, settings);
      expect([...pending.values()][0].redirectUri).toBe(uri);
    });

    const repeated = authorizeParams();
    repeated.append('redirect_uri', redirectUri);
    it.each([
      ['an unregistered redirect_uri', authorizeParams({ redirect_uri: 'http://127.0.0.1:6274/other' })],
      ['another loopback host', authorizeParams({ redirect_uri: 'http://localhost:6274/cb' })],
      ['https on the loopback port', authorizeParams({ redirect_uri: 'https://127.0.0.1:6274/cb' })],
      ['an unknown client', authorizeParams({ client_id: 'client-2' })],
      ['a repeated redirect_uri', repeated],
    ])('never redirects for %s', async (_, params) => {
      const { service, pending } = setup();
      await expect(service.authorize(params, issuer, settings)).rejects.toThrow(BadRequestException);
      expect(pending.size).toBe(0);
    });
  });

  describe('token with grant_type authorization_code', () => {
    const tokens = { access_token: 'at', refresh_token: 'rt', token_type: 'Bearer', expires_in: 3600 };
    const issue = (codes: ReturnType<typeof setup>['codes'], code: string, expiresInMs = 60_000) =>
      codes.set(hashSecret(code), {
        codeHash: hashSecret(code),
        clientId: client.clientId,
        redirectUri,
        codeChallenge: challenge,
        sealedTokens: sealWithCode(code, JSON.stringify(tokens)),
        expiresAt: new Date(Date.now() + expiresInMs),
        createdAt: new Date(),
      });
    const exchange = (overrides: Record<string, unknown> = {}) => ({
      grant_type: 'authorization_code',
      code: 'the-code',
      client_id: client.clientId,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      ...overrides,
    });
    const refusal = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OAuthProtocolError);
      const { code, description } = error as OAuthProtocolError;
      return { code, description };
    };

    it('answers the sealed tokens to the client, redirect URI and verifier the code was issued for', async () => {
      const { service, codes } = setup();
      issue(codes, 'the-code');
      expect(await service.token(exchange(), settings)).toMatchObject({
        access_token: 'at',
        refresh_token: 'rt',
        token_type: 'Bearer',
      });
    });

    it('spends a code on its first use, even a wrong one', async () => {
      const { service, codes } = setup();
      issue(codes, 'the-code');
      expect(await refusal(service.token(exchange({ code_verifier: 'w'.repeat(43) }), settings))).toEqual({
        code: 'invalid_grant',
        description: 'code_verifier does not match the code_challenge',
      });
      expect(await refusal(service.token(exchange(), settings))).toEqual({
        code: 'invalid_grant',
        description: 'the code is invalid, expired or already used',
      });
    });

    it('refuses an expired code', async () => {
      const { service, codes } = setup();
      issue(codes, 'the-code', -1);
      expect((await refusal(service.token(exchange(), settings))).description).toBe(
        'the code is invalid, expired or already used',
      );
    });

    it.each([
      ['another client', { client_id: 'client-2' }],
      ['another redirect_uri', { redirect_uri: 'http://127.0.0.1:6274/other' }],
    ])('refuses the code for %s', async (_, overrides) => {
      const { service, codes } = setup();
      issue(codes, 'the-code');
      expect(await refusal(service.token(exchange(overrides), settings))).toEqual({
        code: 'invalid_grant',
        description: 'the code was issued to another client or redirect_uri',
      });
    });

    it('refuses a verifier outside RFC 7636 even when its hash would match', async () => {
      const { service, codes } = setup();
      const short = 'v'.repeat(42);
      issue(codes, 'the-code');
      codes.get(hashSecret('the-code'))!.codeChallenge = s256(short);
      expect((await refusal(service.token(exchange({ code_verifier: short }), settings))).code).toBe(
        'invalid_grant',
      );
    });

    it.each(['code', 'client_id', 'redirect_uri', 'code_verifier'])('requires %s', async (name) => {
      const { service, codes } = setup();
      issue(codes, 'the-code');
      expect(await refusal(service.token(exchange({ [name]: undefined }), settings))).toEqual({
        code: 'invalid_request',
        description: 'code, client_id, redirect_uri and code_verifier are required',
      });
      // A malformed request does not spend the code.
      expect(codes.has(hashSecret('the-code'))).toBe(true);
    });

    it('refuses another grant type', async () => {
      const { service } = setup();
      expect((await refusal(service.token({ grant_type: 'password' }, settings))).code).toBe(
        'unsupported_grant_type',
      );
    });
  });
});
