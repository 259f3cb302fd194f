import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { runAdmin } from './support/processes';

jest.setTimeout(180_000);

describe('Admin CLI: contact import', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp({ AUTOMATION_WORKER_ENABLED: 'false' });
    acme = await createTenant(t.app);
    dir = mkdtempSync(join(tmpdir(), 'contact-import-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  const admin = (...args: string[]) => runAdmin(args, { DATABASE_URL: t.databaseUrl });
  const api = () => httpClient(t.baseUrl, acme.key);
  const contacts = () => `/v1/funnels/${acme.funnelId}/contacts`;
  const csvFile = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const refusedRows = (file: string) =>
    parse(readFileSync(`${file}.refused.csv`, 'utf8'), { columns: true }) as Record<string, string>[];

  it('creates every valid row in batches of 100, and writes the refused ones with their reasons beside the file', async () => {
    const lines = ['email,firstName,address.city,properties.plan,id'];
    for (let i = 0; i < 230; i++) lines.push(`person${i}@example.com,Person ${i},Berlin,pro,ignored-${i}`);
    lines.splice(51, 0, 'not-an-email,Bad,Berlin,pro,x'); // line 52 of the file
    lines.splice(151, 0, ',Nobody,Berlin,,x'); // line 152: neither email nor phone
    lines.push('short@example.com,Short'); // two cells for a header of five
    const file = csvFile('first.csv', `\uFEFF${lines.join('\r\n')}\r\n`);

    const result = await admin('contact', 'import', '--funnel', acme.funnelId, '--file', file);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.json).toEqual({
      rows: 233,
      created: 230,
      updated: 0,
      refused: 3,
      ignoredColumns: ['id'],
      refusedFile: `${file}.refused.csv`,
    });

    const refused = refusedRows(file);
    expect(refused.map((r) => [r.line, r.email, r.firstName])).toEqual([
      ['52', 'not-an-email', 'Bad'],
      ['152', '', 'Nobody'],
      ['234', 'short@example.com', 'Short'],
    ]);
    expect(refused[0].reason).toMatch(/email/);
    expect(refused[1].reason).toMatch(/email or phone|email and phone/);
    expect(refused[2].reason).toBe('the row has 2 cells, the header 5');

    const list = await api().get(`${contacts()}?email=person229@example.com`);
    expect(list.body.meta.total).toBe(1);
    expect(list.body.data[0]).toMatchObject({
      firstName: 'Person 229',
      address: { city: 'Berlin' },
      properties: { plan: 'pro' },
    });
    expect((await api().get(contacts())).body.meta.total).toBe(230);
  });

  it('with --upsert-by email and --map, updates the contacts it finds and creates the others', async () => {
    const file = csvFile(
      'second.csv',
      ['E-Mail;Nachname;Notiz', 'PERSON0@example.com;Zero;x', 'new@example.com;New;y', ''].join('\n'),
    );
    const result = await admin(
      'contact',
      'import',
      '--funnel',
      acme.funnelId,
      '--file',
      file,
      '--delimiter',
      ';',
      '--upsert-by',
      'email',
      '--map',
      'E-Mail=email',
      '--map',
      'Nachname=lastName,Notiz=',
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.json).toEqual({ rows: 2, created: 1, updated: 1, refused: 0, ignoredColumns: ['Notiz'] });
    expect(existsSync(`${file}.refused.csv`)).toBe(false);

    const updated = await api().get(`${contacts()}?email=person0@example.com`);
    expect(updated.body.data).toHaveLength(1);
    expect(updated.body.data[0]).toMatchObject({ firstName: 'Person 0', lastName: 'Zero' });
    expect((await api().get(contacts())).body.meta.total).toBe(231);
  });

  it('refuses a file with a column that names no member, writing nothing', async () => {
    const file = csvFile('unknown.csv', 'email,Vorname\nsomeone@example.com,Some\n');
    const result = await admin('contact', 'import', '--funnel', acme.funnelId, '--file', file);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.json.error).toMatch(/columns "Vorname" name no contact member/);
    expect((await api().get(`${contacts()}?email=someone@example.com`)).body.meta.total).toBe(0);
  });

  it('answers a funnel that does not exist with 404 and a bad --map as a usage error', async () => {
    const file = csvFile('one.csv', 'email\none@example.com\n');
    const missing = await admin(
      'contact',
      'import',
      '--funnel',
      '00000000-0000-4000-8000-000000000000',
      '--file',
      file,
    );
    expect(missing).toMatchObject({ code: 1, json: { error: 'Funnel not found' } });

    const bad = await admin(
      'contact',
      'import',
      '--funnel',
      acme.funnelId,
      '--file',
      file,
      '--map',
      'E-Mail',
    );
    expect(bad.code).toBe(2);
    expect(bad.json).toMatchObject({
      error: '--map entry "E-Mail" must be Column=member',
      usage: expect.stringMatching(/^admin contact import --funnel <funnelId> --file <path>/),
    });
  });
});
