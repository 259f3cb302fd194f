import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, JWK, JWTPayload, SignJWT } from 'jose';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export interface TestTokenIssuer {
  /** http://127.0.0.1:<port>: use as IDP_URL; serves /.well-known/jwks.json. */
  url: string;
  /** The published signing key, as a private JWK (for the development identity provider). */
  privateJwk: JWK;
  /** PEM of the published public key (for algorithm-confusion attempts). */
  publicKeyPem: string;
  /** An RS256 token signed with the published key; `key: 'unpublished'` signs with a key not in the JWKS. */
  sign(payload: JWTPayload, options?: SignOptions): Promise<string>;
  close(): Promise<void>;
}

export interface SignOptions {
  issuer?: string;
  audience?: string;
  expiresIn?: string | number;
  notBefore?: string | number;
  key?: 'published' | 'unpublished';
}

interface SigningKey {
  kid: string;
  privateKey: KeyPair['privateKey'];
  publicKey: KeyPair['publicKey'];
  privateJwk: JWK;
  publicJwk: JWK;
}

async function signingKey(): Promise<SigningKey> {
  const kid = randomUUID();
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const meta = { kid, alg: 'RS256', use: 'sig' };
  return {
    kid,
    privateKey,
    publicKey,
    privateJwk: { ...(await exportJWK(privateKey)), ...meta },
    publicJwk: { ...(await exportJWK(publicKey)), ...meta },
  };
}

/** A real RSA key pair published as a JWKS on loopback, signing tokens the way an IdP would. */
export async function startTokenIssuer(defaults: { audience: string }): Promise<TestTokenIssuer> {
  const published = await signingKey();
  const unpublished = await signingKey();
  const server: Server = createServer((request, response) => {
    if (request.url !== '/.well-known/jwks.json') return void response.writeHead(404).end();
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ keys: [published.publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    privateJwk: published.privateJwk,
    publicKeyPem: await exportSPKI(published.publicKey),
    sign: async (payload, options = {}) => {
      const key = options.key === 'unpublished' ? unpublished : published;
      const jwt = new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'at+jwt' })
        .setIssuer(options.issuer ?? `${url}/`)
        .setAudience(options.audience ?? defaults.audience)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '1h');
      if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
      return jwt.sign(key.privateKey);
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
