import { createTestDatabase } from './support/database';
import { CliResult, runAdmin } from './support/processes';

jest.setTimeout(400_000);

/** A usage error: exactly one JSON object `{"error","usage"}` on stderr, nothing on stdout, exit 2. */
function expectUsageError(result: CliResult, error: string | RegExp, usage: string | RegExp): void {
  expect(result.stdout).toBe('');
  expect(result.code).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0])).toEqual({
    error: expect.stringMatching(error),
    usage: expect.stringMatching(usage),
  });
}

/** A result: exactly one JSON object on stdout, nothing on stderr, exit 0. */
function expectResult(result: CliResult): Record<string, unknown> {
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  return result.json;
}

describe('Admin CLI contract', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const admin = (...args: string[]) => runAdmin(args, { DATABASE_URL: db.url });

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it.each([
    [
      [],
      'a command is required',
      /^admin <company\|workspace\|funnel\|contact\|apikey\|automation\|mail\|demo\|citus>/,
    ],
    [['bogus'], "unknown command 'bogus'", /^admin </],
    [['funnel'], 'a funnel command is required', /^admin funnel <create\|list\|show\|collection>/],
    [['funnel', 'bogus'], "unknown command 'bogus' for 'funnel'", /^admin funnel </],
    [
      ['company', 'create'],
      "required option '--name <name>' not specified",
      'admin company create --name <name> [--subscription <id>]',
    ],
    [
      ['company', 'create', '--name'],
      "option '--name <name>' argument missing",
      /^admin company create --name/,
    ],
    [['company', 'list', '--bogus'], "unknown option '--bogus'", 'admin company list'],
    [
      ['workspace', 'list'],
      "required option '--company <companyId>' not specified",
      'admin workspace list --company <companyId>',
    ],
    [
      ['funnel', 'create', '--workspace', 'w', '--name', 'n', '--pages', 'start'],
      '--pages entry "start" must be slug:Title',
      /^admin funnel create --workspace <workspaceId> --name <name>/,
    ],
    [['apikey', 'revoke', '--id'], /argument missing/, 'admin apikey revoke --id <keyId>'],
    [
      ['apikey', 'create', '--company', 'c', '--permissions', 'crm:read', '--expires-in', '90 days'],
      '--expires-in must be a whole number of days, hours, minutes or seconds up to 3650d, like 90d, 12h, 30m or 45s',
      /^admin apikey create --company <companyId> --permissions <list> \[--name <name>\] \[--expires-in <duration>\]/,
    ],
    [
      ['contact', 'import', '--funnel', 'f'],
      "required option '--file <path>' not specified",
      /^admin contact import --funnel <funnelId> --file <path> \[--upsert-by <key>\]/,
    ],
    [
      ['automation', 'disable'],
      "required option '--id <automationId>' not specified",
      'admin automation disable --id <automationId>',
    ],
  ])('%j is a usage error', async (args, error, usage) => {
    expectUsageError(await admin(...args), error, usage);
  });

  it.each([
    [['--help'], 'admin'],
    [['-h'], 'admin'],
    [['help'], 'admin'],
    [['funnel', '--help'], 'admin funnel'],
    [['help', 'automation'], 'admin automation'],
    [['funnel', 'show', '--help'], 'admin funnel show'],
  ])('%j describes the command as JSON on stdout', async (args, command) => {
    const help = expectResult(await admin(...args));
    expect(help).toMatchObject({
      command,
      description: expect.any(String),
      usage: expect.stringMatching(command),
    });
    const entries = (help.commands ?? help.options) as { description: string }[];
    expect(entries.length).toBeGreaterThan(0);
  });

  it('lists companies, workspaces, funnels and automations, and switches an automation off, on and away', async () => {
    const company = String(expectResult(await admin('company', 'create', '--name', 'Listed')).id);
    const workspace = String(
      expectResult(await admin('workspace', 'create', '--company', company, '--name', 'Sales')).id,
    );
    const funnel = String(
      expectResult(
        await admin(
          ...['funnel', 'create', '--workspace', workspace, '--name', 'Quiz', '--statuses', 'new,won'],
          ...['--pages', 'start:Welcome,end:Thank you'],
        ),
      ).id,
    );

    const companies = expectResult(await admin('company', 'list')).data as { id: string; name: string }[];
    expect(companies).toContainEqual(expect.objectContaining({ id: company, name: 'Listed' }));
    expect(expectResult(await admin('workspace', 'list', '--company', company))).toEqual({
      data: [{ id: workspace, name: 'Sales', campaigns: [{ id: funnel, name: 'Quiz', status: 'offline' }] }],
    });
    expect(expectResult(await admin('funnel', 'list', '--workspace', workspace))).toEqual({
      data: [
        {
          id: funnel,
          name: 'Quiz',
          status: 'offline',
          contactStatuses: ['new', 'won'],
          createdAt: expect.any(String),
        },
      ],
    });

    expect(expectResult(await admin('funnel', 'show', '--id', funnel))).toEqual({
      id: funnel,
      workspaceId: workspace,
      name: 'Quiz',
      status: 'offline',
      contactStatuses: ['new', 'won'],
      collection: { enabled: false, allowedOrigins: [] },
      pages: [
        { slug: 'start', title: 'Welcome' },
        { slug: 'end', title: 'Thank you' },
      ],
      questions: [],
    });

    const automation = String(
      expectResult(
        await admin(
          'automation',
          'create',
          '--funnel',
          funnel,
          '--on',
          'status:won',
          '--webhook',
          'https://hooks.example/won',
        ),
      ).id,
    );
    const listed = expectResult(await admin('automation', 'list', '--funnel', funnel));
    expect(listed).toEqual({
      data: [
        expect.objectContaining({
          id: automation,
          trigger: 'status:won',
          enabled: true,
          action: 'webhook',
          signed: false,
        }),
      ],
    });
    expect(expectResult(await admin('automation', 'disable', '--id', automation))).toMatchObject({
      enabled: false,
    });
    expect(expectResult(await admin('automation', 'list', '--funnel', funnel)).data).toEqual([
      expect.objectContaining({ id: automation, enabled: false }),
    ]);
    expect(expectResult(await admin('automation', 'enable', '--id', automation))).toMatchObject({
      enabled: true,
    });
    expect(expectResult(await admin('automation', 'delete', '--id', automation))).toEqual({
      id: automation,
      deleted: true,
      runsDeleted: 0,
    });
    expect(expectResult(await admin('automation', 'list', '--funnel', funnel))).toEqual({ data: [] });

    const gone = await admin('automation', 'delete', '--id', automation);
    expect(gone).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(gone.stderr)).toEqual({ error: 'Automation not found' });
    const unknownWorkspace = await admin(
      'funnel',
      'list',
      '--workspace',
      '00000000-0000-4000-8000-000000000000',
    );
    expect(JSON.parse(unknownWorkspace.stderr)).toEqual({ error: 'Workspace not found' });
  });

  it('turns browser collection on for an origin and prints the tracker tags', async () => {
    const company = String(expectResult(await admin('company', 'create', '--name', 'Pages')).id);
    const workspace = String(
      expectResult(await admin('workspace', 'create', '--company', company, '--name', 'W')).id,
    );
    const funnel = String(
      expectResult(await admin('funnel', 'create', '--workspace', workspace, '--name', 'F')).id,
    );
    const refused = await admin('funnel', 'collection', '--id', funnel, '--enable');
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(refused.stderr)).toMatchObject({
      error: 'collection.enabled needs at least one allowed origin',
    });

    const on = expectResult(
      await admin(
        'funnel',
        'collection',
        '--id',
        funnel,
        '--enable',
        '--origins',
        'https://quiz.example.com',
      ),
    );
    expect(on).toEqual({
      collection: { enabled: true, allowedOrigins: ['https://quiz.example.com'] },
      tag: `<script defer src="{base}/tracker.js" data-funnel="${funnel}"></script>`,
      pinnedTag: expect.stringMatching(
        /^<script defer src="\{base\}\/tracker\/[0-9a-f]{16}\.js" integrity="sha384-[A-Za-z0-9+/=]{64}" crossorigin="anonymous"/,
      ),
    });
    expect(expectResult(await admin('funnel', 'show', '--id', funnel)).collection).toEqual(on.collection);
    const off = expectResult(await admin('funnel', 'collection', '--id', funnel, '--disable'));
    expect(off.collection).toEqual({ enabled: false, allowedOrigins: ['https://quiz.example.com'] });
  });

  it('demo seed run again prints the demo company it made before, with a fresh key', async () => {
    const first = expectResult(await admin('demo', 'seed'));
    const second = expectResult(await admin('demo', 'seed'));
    expect(first.created).toBe(true);
    expect(second).toEqual({ ...first, apiKey: expect.stringMatching(/^fcrm_/), created: false });
    expect(second.apiKey).not.toBe(first.apiKey);
    const demoCompanies = (expectResult(await admin('company', 'list')).data as { name: string }[]).filter(
      (c) => c.name === 'Demo Company',
    );
    expect(demoCompanies).toHaveLength(1);
  });
});
