import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { Client } from 'pg';
import { hashKey } from '@app/auth';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';

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
  let a: TestApp;
  let b: TestApp;
  let sql: Client;
  let tenant: TenantFixture;
  let lookups: { prefixes: string[] };
  let address = 0;

  beforeAll(async () => {
    const env = { AUTH_FAILURES_PER_MINUTE: String(FAILURES_PER_MINUTE), TRUST_PROXY: 'true' };
    a = await startTestApp(env);
    b = await startTestApp(env, a.databaseUrl);
    sql = new Client({ connectionString: a.databaseUrl });
    await sql.connect();
    tenant = await createTenant(a.app);
    lookups = countLookups(a.app);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await sql?.end();
    await b?.app.close();
    await a?.close();
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
});
