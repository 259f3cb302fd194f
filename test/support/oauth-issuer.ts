import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { databaseDevUser, DevIdp, startDevIdp } from '@app/dev-idp';
import { startTestApp, TestApp } from './app';
import { createTestDatabase } from './database';
import { createTenant, TenantFixture } from './factories';

export const OAUTH = {
  OAUTH_CLIENT_ID: 'funnel-crm-e2e-client',
  OAUTH_AUDIENCE: 'https://api.funnel.example',
  OAUTH_CLAIM_NAMESPACE: 'https://funnel.example',
};

export interface OAuthStack {
  t: TestApp;
  idp: DevIdp;
  /** The company the development identity provider signs in (the oldest). */
  tenant: TenantFixture;
  close(): Promise<void>;
}

/** The real app in the given OAuth mode, in front of the development identity provider. */
export async function startOAuthStack(mode: 'proxy' | 'issuer', extra: Record<string, string> = {}) {
  const db = await createTestDatabase();
  const idp = await startDevIdp({
    port: 0,
    clientId: OAUTH.OAUTH_CLIENT_ID,
    audience: OAUTH.OAUTH_AUDIENCE,
    claimNamespace: OAUTH.OAUTH_CLAIM_NAMESPACE,
    findUser: databaseDevUser(db.url),
  });
  const t = await startTestApp({ ...OAUTH, IDP_URL: idp.url, OAUTH_MODE: mode, ...extra }, db.url);
  const tenant = await createTenant(t.app);
  return {
    t,
    idp,
    tenant,
    close: async () => {
      await t.close();
      await idp.close();
      await db.drop();
    },
  } satisfies OAuthStack;
}

export interface DocumentServer {
  url: string;
  /** How many times each path was fetched. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Client ID Metadata Documents on loopback: `path` → document (a function of the server's URL). */
export async function serveClientDocuments(
  documents: Record<string, (base: string) => unknown>,
): Promise<DocumentServer> {
  const hits = new Map<string, number>();
  let base = '';
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const document = documents[path];
    if (!document) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document(base)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    hits,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The HTTP status of a `tools/list` on `/mcp` with `accessToken`: 200, or 401 for a refused token. */
export async function mcpStatusWith(baseUrl: string, accessToken: string): Promise<number> {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await response.body?.cancel();
  return response.status;
}
