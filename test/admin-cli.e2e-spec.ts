import { createTestDatabase } from './support/database';
import { runAdmin } from './support/processes';
import { startTestApp, TestApp } from './support/app';

// Each admin CLI call is a process that boots the application context: about 10 s on a 2-core machine
// shared with CPU-bound work, so the budget counts a minute per call.
jest.setTimeout(400_000);

describe('Admin CLI', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase();
    env = { DATABASE_URL: db.url };
  });
  afterAll(() => db.drop());

  const admin = (...args: string[]) => runAdmin(args, env);

  it('provisions a company whose key serves GET /v1/workspaces, then revokes it', async () => {
    const company = await admin('company', 'create', '--name', 'Acme');
    expect(company).toMatchObject({ code: 0, stderr: '' });
    expect(Object.keys(company.json)).toEqual(['id']);
    const workspace = await admin(
      'workspace',
      'create',
      '--company',
      String(company.json.id),
      '--name',
      'Sales',
    );
    const funnel = await admin(
      'funnel',
      'create',
      '--workspace',
      String(workspace.json.id),
      '--name',
      'Quiz',
      '--status',
      'online',
      '--statuses',
      'new,won',
      '--pages',
      'start:Welcome,end:Thank you',
    );
    expect(funnel.code).toBe(0);
    const key = await admin(
      'apikey',
      'create',
      '--company',
      String(company.json.id),
      '--permissions',
      'crm:read,webhooks:write',
      '--name',
      'ci',
    );
    expect(Object.keys(key.json).sort()).toEqual(['id', 'key']);
    expect(String(key.json.key)).toMatch(/^fcrm_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);

    const t: TestApp = await startTestApp({}, db.url);
    try {
      const list = () =>
        fetch(`${t.baseUrl}/v1/workspaces`, { headers: { 'x-service-api-key': String(key.json.key) } });
      expect(await (await list()).json()).toEqual({
        data: [
          {
            id: workspace.json.id,
            name: 'Sales',
            campaigns: [{ id: funnel.json.id, name: 'Quiz', status: 'online' }],
          },
        ],
      });

      const keys = await admin('apikey', 'list', '--company', String(company.json.id));
      expect(keys.json).toEqual({
        data: [
          {
            id: key.json.id,
            name: 'ci',
            prefix: String(key.json.key).slice(5, 17),
            permissions: ['crm:read', 'webhooks:write'],
            createdAt: expect.any(String),
            revokedAt: null,
            expiresAt: null,
            // The request above was recorded (after it was answered).
            lastUsedAt: expect.any(String),
          },
        ],
      });
      expect(keys.stdout).not.toContain(String(key.json.key).slice(18));

      const revoked = await admin('apikey', 'revoke', '--id', String(key.json.id));
      expect(revoked.json).toEqual({ id: key.json.id, revokedAt: expect.any(String) });
      expect((await list()).status).toBe(401);
    } finally {
      await t.close();
    }
  });

  it.each([
    [['company', 'create'], "required option '--name <name>' not specified"],
    [
      ['workspace', 'create', '--company', '00000000-0000-4000-8000-000000000000', '--name', 'X'],
      'Company not found',
    ],
    [['funnel', 'create', '--workspace', 'nope', '--name', 'X'], 'Workspace not found'],
    [
      ['funnel', 'create', '--workspace', 'nope', '--name', 'X', '--status', 'live'],
      'status must be online or offline',
    ],
    [
      ['funnel', 'create', '--workspace', 'nope', '--name', 'X', '--pages', 'start'],
      '--pages entry "start" must be slug:Title',
    ],
    [
      ['apikey', 'create', '--company', 'nope', '--permissions', 'crm:delete'],
      'permissions must be a non-empty list of crm:read, crm:write, metrics:read, events:write, webhooks:write',
    ],
    [['apikey', 'revoke', '--id', 'nope'], 'API key not found'],
    [['bogus'], "unknown command 'bogus'"],
  ])('%j fails with one JSON error on stderr', async (args, message) => {
    const result = await admin(...args);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr.trim())).toMatchObject({ error: message });
  });

  it('creates a key that expires with --expires-in and lists its expiry', async () => {
    const company = await admin('company', 'create', '--name', 'Expiring');
    const before = Date.now();
    const key = await admin(
      'apikey',
      'create',
      '--company',
      String(company.json.id),
      '--permissions',
      'crm:read',
      '--expires-in',
      '90d',
    );
    const after = Date.now();
    expect(key.code).toBe(0);
    expect(Object.keys(key.json).sort()).toEqual(['expiresAt', 'id', 'key']);
    // 90 days from the moment the command ran, however long it took.
    const expiresAt = Date.parse(String(key.json.expiresAt));
    expect(expiresAt - before).toBeGreaterThanOrEqual(90 * 86_400_000);
    expect(expiresAt - after).toBeLessThanOrEqual(90 * 86_400_000);
    const keys = await admin('apikey', 'list', '--company', String(company.json.id));
    expect(keys.json).toMatchObject({
      data: [{ id: key.json.id, expiresAt: key.json.expiresAt, lastUsedAt: null }],
    });
  });

  it('demo seed prints a working key and the demo ids', async () => {
    const seed = await admin('demo', 'seed');
    expect(seed.code).toBe(0);
    expect(seed.json).toEqual({
      companyId: expect.any(String),
      apiKey: expect.stringMatching(/^fcrm_/),
      workspaceId: expect.any(String),
      funnelIds: [expect.any(String), expect.any(String)],
      created: true,
    });
    const t = await startTestApp({}, db.url);
    try {
      const res = await fetch(`${t.baseUrl}/v1/workspaces`, {
        headers: { 'x-service-api-key': String(seed.json.apiKey) },
      });
      const body = (await res.json()) as { data: { id: string; campaigns: { id: string }[] }[] };
      expect(body.data.map((w) => w.id)).toEqual([seed.json.workspaceId]);
      expect(body.data[0].campaigns.map((c) => c.id)).toEqual(seed.json.funnelIds);
    } finally {
      await t.close();
    }
  });
});
