import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { PUBLIC_RATE_LIMIT_PER_MINUTE } from '@app/core';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { MCP_AUDIENCE, MCP_CLAIM_NAMESPACE } from './support/mcp-stack';
import { expressRoutes } from './support/route-walk';
import { startTokenIssuer, TestTokenIssuer } from './support/token-issuer';
import { signatureSpellings } from './support/token-spellings';

// The Swagger UI and document are served by the app itself, outside any controller and any limit.
const DOCS = /^\/docs/;
// The probes are never counted (see rate-limit.e2e-spec.ts).
const HEALTH = /^\/health/;
// A funnel page's doors count in their handler, per client address and per funnel (keyed by the
// funnel's stored id, so every spelling reaches one count), once the origin is allowed; the tracker
// script is static and cacheable, limited by no count.
const OWN_LIMITS = /^\/v1\/funnels\/:funnelId\/(collect|submissions)$|^\/tracker/;
// Far from the public limit, so the header tells which count answered.
const LIMIT = 100_000;
const PLACEHOLDER = 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d';

interface Reply {
  status: number;
  limit?: string;
  remaining?: string;
}

/** One request with the request-target exactly as given (node:http sends it untouched). */
function send(baseUrl: string, method: string, target: string, headers: Record<string, string>) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise<Reply>((resolve, reject) => {
    const req = request({ host: hostname, port, method, path: target, headers }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          limit: res.headers['ratelimit-limit'] as string | undefined,
          remaining: res.headers['ratelimit-remaining'] as string | undefined,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const fill = (route: string, value: (name: string) => string) =>
  route.replace(/:(\w+)/g, (_, name: string) => value(name));
const percentEncoded = (text: string) =>
  [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const alternatingCase = (text: string) =>
  [...text].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');

/** The spellings of a route Express serves with the route's handler. */
function servedSpellings(route: string, baseUrl: string): string[] {
  const path = fill(route, () => PLACEHOLDER);
  const spellings = [
    path,
    path.toUpperCase(),
    `${path}/`,
    `${alternatingCase(path)}/`,
    `${path}?cursor=x#fragment`,
    // The absolute form of the request-target (RFC 9112 §3.2.2).
    `${baseUrl}${path.toUpperCase()}`,
  ];
  if (route.includes(':')) spellings.push(fill(route, () => percentEncoded(PLACEHOLDER)));
  return spellings;
}

/** Spellings Express does not route to any handler: answered 404 and counted nowhere. */
function unroutedSpellings(route: string): string[] {
  const path = fill(route, () => PLACEHOLDER);
  const [, first, ...rest] = path.split('/');
  return [
    `/${path}`,
    `${path}//`,
    `/${percentEncoded(first[0])}${first.slice(1)}/${rest.join('/')}`.replace(/\/$/, ''),
  ];
}

describe('Rate limits count every spelling of every route', () => {
  let t: TestApp;
  let acme: TenantFixture;

  beforeAll(async () => {
    // A forwarded address per public route, so each starts a count of its own.
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'true' });
    acme = await createTenant(t.app);
  });
  afterAll(() => t.close());

  it('walks the routes of the app', () => {
    const routes = expressRoutes(t.app).map((r) => r.split(' ')[1]);
    expect(routes).toEqual(
      expect.arrayContaining([
        '/v1/workspaces',
        '/v1/funnels/:funnelId/contacts',
        '/v1/funnels/:funnelId/contacts/search',
        '/mcp',
        '/.well-known/oauth-protected-resource',
      ]),
    );
  });

  it('charges one count per request whatever the spelling, and never serves other spellings', async () => {
    const counts = new Map<string, number>();
    const failures: string[] = [];
    let address = 0;
    for (const entry of expressRoutes(t.app)) {
      const [method, route] = entry.split(' ');
      if (DOCS.test(route) || OWN_LIMITS.test(route)) continue;
      // Every credential at once: which count a route charges is the limiter's decision.
      address += 1;
      const headers = {
        'x-service-api-key': acme.key,
        authorization: 'Bearer walk-token',
        accept: 'application/json, text/event-stream',
        'x-forwarded-for': `203.0.113.${address}`,
      };
      // Express answers HEAD with the GET handler: it is one more spelling of the route.
      const verbs = method === 'GET' ? ['GET', 'HEAD'] : [method];
      const served = verbs.flatMap((verb) =>
        servedSpellings(route, t.baseUrl).map((target) => [verb, target]),
      );
      for (const [verb, target] of served) {
        const reply = await send(t.baseUrl, verb, target, headers);
        if (HEALTH.test(route)) {
          if (reply.limit !== undefined) failures.push(`${verb} ${target}: a probe was counted`);
          continue;
        }
        const limit = Number(reply.limit);
        const bucket =
          limit === PUBLIC_RATE_LIMIT_PER_MINUTE
            ? `address ${address}`
            : route.startsWith('/v1/')
              ? 'api key'
              : 'bearer token';
        const expected = (counts.get(bucket) ?? limit) - 1;
        counts.set(bucket, expected);
        if (reply.remaining !== String(expected))
          failures.push(
            `${verb} ${target} (${reply.status}): remaining ${reply.remaining}, expected ${expected}`,
          );
      }
      for (const target of unroutedSpellings(route)) {
        const reply = await send(t.baseUrl, method, target, headers);
        if (reply.status !== 404 || reply.limit !== undefined)
          failures.push(`${method} ${target}: ${reply.status} though Express routes no handler there`);
      }
    }
    expect(failures).toEqual([]);
    // Every route went through: each count took six requests or more per route it covers.
    const routes = expressRoutes(t.app);
    expect(LIMIT - counts.get('api key')!).toBeGreaterThanOrEqual(
      routes.filter((r) => r.includes(' /v1/')).length * 6,
    );
    expect(LIMIT - counts.get('bearer token')!).toBeGreaterThanOrEqual(6);
  });
});

describe('The MCP limiter counts a token, not its spelling', () => {
  const SPELLINGS = 16;
  let issuer: TestTokenIssuer;
  let t: TestApp;
  let acme: TenantFixture;

  beforeAll(async () => {
    issuer = await startTokenIssuer({ audience: MCP_AUDIENCE });
    t = await startTestApp({
      IDP_URL: issuer.url,
      OAUTH_CLIENT_ID: 'shared-client-id',
      OAUTH_AUDIENCE: MCP_AUDIENCE,
      OAUTH_CLAIM_NAMESPACE: MCP_CLAIM_NAMESPACE,
      RATE_LIMIT_PER_MINUTE: String(SPELLINGS),
    });
    acme = await createTenant(t.app);
  });
  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  const sign = () =>
    issuer.sign({
      sub: 'user-1',
      jti: randomUUID(),
      [`${MCP_CLAIM_NAMESPACE}/user_metadata`]: { companyId: acme.companyId, subscriptionId: 's' },
    });
  const listTools = (token: string, path = '/mcp') =>
    fetch(`${t.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  it('gives the sixteen spellings of one RS256 signature one count', async () => {
    const token = await sign();
    const spellings = signatureSpellings(token);
    expect(new Set(spellings).size).toBe(SPELLINGS);

    const replies = [];
    for (const [i, spelling] of spellings.entries())
      replies.push(await listTools(spelling, i % 2 ? '/MCP/' : '/mcp'));
    // Every spelling verifies (so each would have had a count of its own before) …
    expect(replies.map((r) => r.status)).toEqual(Array(SPELLINGS).fill(200));
    expect(replies.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(
      Array.from({ length: SPELLINGS }, (_, i) => String(SPELLINGS - 1 - i)),
    );
    // … and together they spend the token's allowance.
    for (const spelling of spellings) {
      const refused = await listTools(spelling);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    }
  });

  it('gives another token of the same user a count of its own', async () => {
    const other = await sign();
    const res = await listTools(other);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-remaining')).toBe(String(SPELLINGS - 1));
  });
});
