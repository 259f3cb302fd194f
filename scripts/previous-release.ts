/**
 * The previous release, run beside this checkout: what `npm run fixture:upgrade` records and
 * `npm run bench:answers` compares with. It is the build before
 * `1796600000000-ApiKeyInsertNotifications` (the first migration an upgrade from it applies),
 * checked out into a temporary git worktree that shares this checkout's node_modules (its
 * dependencies are a subset of these, at the same versions).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from '../test/support/processes';

const run = promisify(execFile);
export const ROOT = join(__dirname, '..');
const FIRST_NEW_MIGRATION = 'db/migrations/1796600000000-ApiKeyInsertNotifications.ts';

/** The previous release's commit. */
export async function previousRelease(): Promise<string> {
  const { stdout } = await run('git', ['log', '--diff-filter=A', '--format=%H', '--', FIRST_NEW_MIGRATION], {
    cwd: ROOT,
  });
  const added = stdout.trim().split('\n').pop();
  if (!added) throw new Error(`${FIRST_NEW_MIGRATION} is not in this checkout's history`);
  return (await run('git', ['rev-parse', `${added}^`], { cwd: ROOT })).stdout.trim();
}

export interface Checkout {
  commit: string;
  dir: string;
  /** Runs `scripts/<script>` of the checkout (`migrate.js`, `admin.js …`); returns its output. */
  script(env: NodeJS.ProcessEnv, name: string, ...args: string[]): Promise<string>;
  /** Starts its HTTP service on a free port; resolves once `/health` answers. */
  start(env: NodeJS.ProcessEnv): Promise<{ baseUrl: string; stop(): Promise<void> }>;
  remove(): Promise<void>;
}

/** What a bench runs of a build: its scripts and its service. */
export type Build = Pick<Checkout, 'script' | 'start'>;

/** This checkout, run the same way as the previous release. */
export const thisCheckout: Build = buildIn(ROOT);

/** The scripts and service of the checkout in `dir`. */
function buildIn(dir: string): Build {
  return {
    script: (env, name, ...args) => runScript(dir, env, name, ...args),
    start: (env) => startService(dir, env),
  };
}

/** The previous release in a temporary worktree. */
export async function checkoutPreviousRelease(): Promise<Checkout> {
  const commit = await previousRelease();
  const tmp = await mkdtemp(join(tmpdir(), 'previous-release-'));
  const dir = join(tmp, 'release');
  await run('git', ['worktree', 'add', '--detach', dir, commit], { cwd: ROOT });
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return {
    commit,
    dir,
    ...buildIn(dir),
    remove: async () => {
      await run('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT }).catch(() => undefined);
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * A company, its workspace, `funnels` in it (pages as the admin CLI takes them, `slug:Title,…`) and
 * an API key with every permission the metrics and contacts need, through the checkout's admin CLI.
 */
export async function createTenant(
  release: Pick<Build, 'script'>,
  env: NodeJS.ProcessEnv,
  name: string,
  funnels: { name: string; pages: string }[],
): Promise<{ companyId: string; key: string; funnels: string[] }> {
  const admin = async (...args: string[]) =>
    JSON.parse(await release.script(env, 'admin.js', ...args)) as { id: string; key: string };
  const company = await admin('company', 'create', '--name', name);
  const workspace = await admin('workspace', 'create', '--company', company.id, '--name', 'Main');
  const ids: string[] = [];
  for (const funnel of funnels)
    ids.push(
      (
        await admin(
          'funnel',
          'create',
          '--workspace',
          workspace.id,
          '--name',
          funnel.name,
          '--pages',
          funnel.pages,
        )
      ).id,
    );
  const permissions = 'crm:read,crm:write,metrics:read,events:write';
  const { key } = await admin('apikey', 'create', '--company', company.id, '--permissions', permissions);
  return { companyId: company.id, key, funnels: ids };
}

/** Runs `scripts/<name>` of the checkout in `dir`; returns its output. */
async function runScript(
  dir: string,
  env: NodeJS.ProcessEnv,
  name: string,
  ...args: string[]
): Promise<string> {
  return (await run(process.execPath, [`scripts/${name}`, ...args], { cwd: dir, env, maxBuffer: 1 << 26 }))
    .stdout;
}

/** `npm start` of the checkout in `dir` on a free port, until stopped. */
async function startService(
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  const port = await freePort();
  const server = spawn(process.execPath, ['scripts/start.js'], {
    cwd: dir,
    env: { ...env, PORT: String(port) },
    stdio: 'inherit',
  });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
    await exited;
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await until(async () => {
      if (server.exitCode !== null) throw new Error(`the service in ${dir} exited with ${server.exitCode}`);
      return (await fetch(`${baseUrl}/health`).catch(() => undefined))?.ok === true;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, stop };
}

/**
 * Waits until every funnel is folded and its recorded changes are folded (deleted); with `recent`,
 * folded to the last minute too (a funnel that just had traffic; an idle one keeps its watermark).
 */
export async function folded(url: string, { recent = true, timeoutMs = 600_000 } = {}): Promise<void> {
  const db = new Client({ connectionString: url });
  await db.connect();
  const since = new Date(recent ? Date.now() - 60_000 : 0);
  try {
    await until(async () => {
      const { rows } = await db.query<{ ready: boolean }>(
        `SELECT (SELECT count(*) FROM metric_segment_folds WHERE folded_to IS NULL OR folded_to < $1) = 0
            AND (SELECT count(*) FROM metric_segment_folds) > 0
            AND NOT EXISTS (SELECT 1 FROM metric_segment_changes) AS ready`,
        [since],
      );
      return rows[0].ready;
    }, timeoutMs);
  } finally {
    await db.end();
  }
}

export async function until(check: () => Promise<boolean>, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
