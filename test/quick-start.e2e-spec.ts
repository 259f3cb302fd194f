import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, runAdmin, waitForHttp } from './support/processes';

jest.setTimeout(180_000);

/**
 * The README quick start with nothing but Node: `npm start` on the embedded PostgreSQL, the admin
 * CLI beside the running server, and data that survives a restart.
 */
describe('Quick start on the embedded PostgreSQL', () => {
  let dataDir: string;
  let port: number;
  let server: ChildProcess | undefined;
  const env = () => ({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'error', DATABASE_URL: '' });

  const start = async () => {
    server = spawn(process.execPath, [join(ROOT, 'scripts', 'start.js')], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'development', ...env() },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await waitForHttp(`http://127.0.0.1:${port}/health`);
  };
  const stop = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  const workspaces = (key: string) =>
    fetch(`http://127.0.0.1:${port}/v1/workspaces`, { headers: { 'x-service-api-key': key } });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'funnel-crm-quick-start-'));
    port = await freePort();
  });
  afterAll(async () => {
    await stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the demo seed key while running, keeps the data across a restart, and stops PostgreSQL last', async () => {
    await start();
    const seed = await runAdmin(['demo', 'seed'], env());
    expect(seed.code).toBe(0);
    const key = String(seed.json.apiKey);
    const before = await workspaces(key);
    expect(before.status).toBe(200);
    const listed = await before.json();

    await stop();
    // The server was the last user: the embedded PostgreSQL stopped with it.
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    // The CLI works on its own, starting and stopping the cluster itself.
    const keys = await runAdmin(['apikey', 'list', '--company', String(seed.json.companyId)], env());
    expect(keys.code).toBe(0);
    expect((keys.json.data as unknown[]).length).toBe(1);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    await start();
    const after = await workspaces(key);
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual(listed);
  });
});
