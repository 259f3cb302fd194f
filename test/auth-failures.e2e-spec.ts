import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { Client } from 'pg';
import { hashKey } from '@app/auth';
import { ChangeNotifications } from '@app/core';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { MCP_AUDIENCE, MCP_CLAIM_NAMESPACE } from './support/mcp-stack';
import { startTokenIssuer, TestTokenIssuer } from './support/token-issuer';

jest.setTimeout(60_000);

const FAILURES_PER_MINUTE = 5;
// As in api-key-cache.e2e-spec.ts: a notification reaches every replica within milliseconds.
const BOUND_MS = 1_000;

/** A well-formed key no company holds: `fcrm_<12 hex>_<43 characters>`. */
const unknownKey = (prefix = randomBytes(6).toString('hex')) =>
  `fcrm_${prefix}_${randomBytes(32).toString('base64url')}`;

/** Counts the key lookups the app sends to PostgreSQL (the repository's one statement). */
function countLookups(app: INestApplication): { prefixes: string[] } {
  for (const module of app.get(ModulesContainer).values())
    for (const [token, wrapper] of module.providers) {
      if (typeof token !== 'function' || token.name !== 'ApiKeysRepository') continue;
      const repository = wrapper.instance as { byPrefix(prefix: string): Promise<unknown> };
      const seen = { prefixes: [] as string[] };
      const original = repository.byPrefix.bind(repository);
      jest.spyOn(repository, 'byPrefix').mockImplementation((prefix) => {
        seen.prefixes.push(prefix);
        return original(prefix);
      });
      return seen;
    }
  throw new Error('ApiKeysRepository not found');
}

describe('Failed authentication', () => {
  let issuer: TestTokenIssuer;
  let a: TestApp;
  let b: TestApp;
  let sql: Client;
  let tenant: TenantFixture;
  let lookups: { prefixes: string[] };
  let address = 0;

  beforeAll(async () => {
    issuer = await startTokenIssuer({ audience: MCP_AUDIENCE });
    const env = {
      AUTH_FAILURES_PER_MINUTE: String(FAILURES_PER_MINUTE),
      TRUST_PROXY: 'true',
      IDP_URL: issuer.url,
      OAUTH_CLIENT_ID: 'shared-client-id',
      OAUTH_AUDIENCE: MCP_AUDIENCE,
      OAUTH_CLAIM_NAMESPACE: MCP_CLAIM_NAMESPACE,
    };
    a = await startTestApp(env);
    b = await startTestApp(env, a.databaseUrl);
    sql = new Client({ connectionString: a.databaseUrl });
    await sql.connect();
    tenant = await createTenant(a.app);
    lookups = countLookups(a.app);
    // Absences are remembered only while change notifications are heard: wait until both listen.
    for (const app of [a, b]) {
      await fetch(`${app.baseUrl}/v1/workspaces`, { headers: { 'x-service-api-key': tenant.key } });
      const notifications = app.app.get(ChangeNotifications);
      const deadline = performance.now() + 30_000;
      while (!notifications.listening && performance.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(notifications.listening).toBe(true);
    }
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await sql?.end();
    await b?.app.close();
    await a?.close();
    await issuer?.close();
  });

  /** A client at an address of its own, so each test starts with no failures counted. */
  const client = () => {
    const forwarded = `198.51.100.${++address}`;
    return (app: TestApp, key: string) =>
      fetch(`${app.baseUrl}/v1/workspaces`, {
        headers: { 'x-service-api-key': key, 'x-forwarded-for': forwarded },
      });
  };

  it('answers 429 with Retry-After once an address has used up its failures, before any lookup', async () => {
    const get = client();
    const statuses = [];
    for (let i = 0; i < FAILURES_PER_MINUTE; i++) statuses.push((await get(a, unknownKey())).status);
    expect(statuses).toEqual(Array(FAILURES_PER_MINUTE).fill(401));

    const before = lookups.prefixes.length;
    const refused = await get(a, unknownKey());
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { retryAfter: number };
    expect(body).toEqual({ error: 'Rate limit exceeded', status: 429, retryAfter: expect.any(Number) });
    expect(refused.headers.get('retry-after')).toBe(String(body.retryAfter));
    expect(body.retryAfter).toBeGreaterThanOrEqual(1);
    expect(body.retryAfter).toBeLessThanOrEqual(60);
    // Even a valid key waits for the window to end at that address: guesses and keys look alike.
    expect((await get(a, tenant.key)).status).toBe(429);
    expect(lookups.prefixes.length).toBe(before);
  });

  it('leaves other addresses and valid keys alone', async () => {
    const get = client();
    for (let i = 0; i < 20; i++) expect((await get(a, tenant.key)).status).toBe(200);
    expect((await client()(a, tenant.key)).status).toBe(200);
  });

  it('does not count a request without a key (it costs no lookup)', async () => {
    const get = client();
    const statuses = [];
    for (let i = 0; i < FAILURES_PER_MINUTE + 2; i++) statuses.push((await get(a, '')).status);
    expect(statuses).toEqual(Array(FAILURES_PER_MINUTE + 2).fill(401));
    expect((await get(a, tenant.key)).status).toBe(200);
  });

  it('looks an unknown key up once, whichever address sends it again', async () => {
    const key = unknownKey();
    const prefix = key.slice(5, 17);
    for (let i = 0; i < 4; i++) expect((await client()(a, key)).status).toBe(401);
    expect(lookups.prefixes.filter((p) => p === prefix)).toEqual([prefix]);
  });

  it('accepts a key inserted later by another writer with a prefix tried before, on every replica', async () => {
    const key = unknownKey();
    const prefix = key.slice(5, 17);
    expect((await client()(a, key)).status).toBe(401);
    expect((await client()(b, key)).status).toBe(401);
    await sql.query(
      `INSERT INTO api_keys (company_id, prefix, key_hash, permissions) VALUES ($1, $2, $3, '{crm:read}')`,
      [tenant.companyId, prefix, hashKey(key)],
    );
    const deadline = performance.now() + BOUND_MS;
    let statuses: number[];
    for (;;) {
      statuses = [(await client()(a, key)).status, (await client()(b, key)).status];
      if (statuses.every((s) => s === 200) || performance.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(statuses).toEqual([200, 200]);
  });

  it('counts refused bearer tokens per address too, on /mcp', async () => {
    const forwarded = `198.51.100.${++address}`;
    const post = (token: string) =>
      fetch(`${a.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'x-forwarded-for': forwarded,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const valid = await issuer.sign({
      sub: 'user-1',
      [`${MCP_CLAIM_NAMESPACE}/user_metadata`]: { companyId: tenant.companyId, subscriptionId: 's' },
    });
    expect((await post(valid)).status).toBe(200);
    const statuses = [];
    for (let i = 0; i < FAILURES_PER_MINUTE; i++) {
      const unpublished = await issuer.sign({ sub: `guess-${i}` }, { key: 'unpublished' });
      statuses.push((await post(unpublished)).status);
    }
    expect(statuses).toEqual(Array(FAILURES_PER_MINUTE).fill(401));
    const refused = await post(valid);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
