import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chmod,
  cp,
  lstat,
  mkdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Binaries {
  pg_ctl: string;
  initdb: string;
}

export interface Account {
  uid: number;
  gid: number;
}

/**
 * Where a root process keeps what the `postgres` account must reach when the checkout or DATA_DIR
 * sit under a folder it cannot enter (a clone in /root, a mode-0700 parent): a copy of the
 * binaries, and the clusters, one per DATA_DIR. Both are rebuilt when missing.
 */
export function rootSharedDir(): string {
  // Read at each use: the test run points it at its own temporary folder after this is loaded.
  return process.env.EMBEDDED_POSTGRES_SHARED_DIR || '/var/lib/funnel-crm';
}

/** As root, PostgreSQL must run as another account: `postgres`, created when missing. */
export async function postgresAccount(): Promise<Account | undefined> {
  if (userInfo().uid !== 0) return undefined;
  const ids = async () => {
    const [uid, gid] = await Promise.all([
      run('id', ['-u', 'postgres']).then((r) => Number(r.stdout)),
      run('id', ['-g', 'postgres']).then((r) => Number(r.stdout)),
    ]);
    return { uid, gid };
  };
  try {
    return await ids();
  } catch {
    await run('groupadd', ['-f', 'postgres']);
    await run('useradd', ['-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres']).catch(
      () => undefined,
    );
    return ids();
  }
}

/** True when `account` can do `test <flag> path` (x: enter or run, w: write). */
async function accountCan(account: Account, flag: '-x' | '-w', path: string): Promise<boolean> {
  return run('test', [flag, path], { uid: account.uid, gid: account.gid }).then(
    () => true,
    () => false,
  );
}

async function packageBinaries(): Promise<Binaries & { version: string }> {
  // The binaries package of `embedded-postgres` for this platform, found where Node would resolve
  // it. Its ESM entry is not loaded: it only names these paths.
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  const root = (require.resolve.paths(name) ?? [])
    .map((folder) => join(folder, name))
    .find((folder) => existsSync(join(folder, 'native', 'bin', 'pg_ctl')));
  if (!root) {
    throw new EmbeddedPostgresError(`${name} is not installed`, 'run `npm ci` on this platform');
  }
  const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
  const bin = join(root, 'native', 'bin');
  return { pg_ctl: join(bin, 'pg_ctl'), initdb: join(bin, 'initdb'), version };
}

/**
 * The PostgreSQL binaries, runnable by `account`: the installed package's own, or (when the
 * account cannot reach them) a copy under rootSharedDir() made once per package version.
 */
export async function binariesFor(account: Account | undefined): Promise<Binaries> {
  const installed = await packageBinaries();
  if (!account || (await accountCan(account, '-x', installed.initdb))) return installed;

  const target = join(
    rootSharedDir(),
    'embedded-postgres',
    `${installed.version}-${process.platform}-${process.arch}`,
  );
  const copied = { pg_ctl: join(target, 'bin', 'pg_ctl'), initdb: join(target, 'bin', 'initdb') };
  if (!existsSync(join(target, '.complete'))) {
    // Copied beside its final place and renamed, so a concurrent or interrupted copy is never used.
    const staging = `${target}.${process.pid}.tmp`;
    await rm(staging, { recursive: true, force: true });
    await cp(dirname(dirname(installed.initdb)), staging, { recursive: true, verbatimSymlinks: true });
    await writeFile(join(staging, '.complete'), `${installed.version}\n`);
    await rename(staging, target).catch(async (error) => {
      await rm(staging, { recursive: true, force: true });
      if (!existsSync(join(target, '.complete'))) throw error;
    });
  }
  await openPath(target);
  if (!(await accountCan(account, '-x', copied.initdb))) {
    throw new EmbeddedPostgresError(
      `the postgres account cannot run ${copied.initdb}`,
      `make ${rootSharedDir()} readable by it, or set EMBEDDED_POSTGRES_SHARED_DIR to a folder it can reach`,
    );
  }
  return copied;
}

/** Makes every folder from / down to `path` enterable by other accounts (only ours are changed). */
async function openPath(path: string): Promise<void> {
  const chain: string[] = [];
  for (let p = path; p.startsWith(rootSharedDir()); p = dirname(p)) chain.push(p);
  for (const p of chain) await chmod(p, 0o755);
}

/**
 * The folder that holds the cluster for DATA_DIR `dir`: `<dir>/postgres` when the account can
 * reach it; otherwise a folder under rootSharedDir() named after DATA_DIR, which `<dir>/postgres`
 * links to so that an operator finds it.
 */
export async function clusterDirFor(dir: string, account: Account | undefined): Promise<string> {
  const local = join(dir, 'postgres');
  const link = await lstat(local).catch(() => undefined);
  if (link?.isSymbolicLink()) return readlink(local);
  if (link && !existsSync(join(local, 'PG_VERSION'))) {
    // What a failed initialisation left behind: nothing worth keeping, and it would fail again.
    await rm(local, { recursive: true, force: true });
  } else if (link) return local;
  if (!account || (await accountCan(account, '-x', dir))) return local;

  const id = createHash('sha256').update(dir).digest('hex').slice(0, 16);
  const shared = join(rootSharedDir(), 'clusters', id);
  await mkdir(shared, { recursive: true });
  await openPath(join(rootSharedDir(), 'clusters'));
  await writeFile(join(shared, 'DATA_DIR'), `${dir}\n`);
  const cluster = join(shared, 'postgres');
  await symlink(cluster, local);
  return cluster;
}

/** A start that cannot succeed as things are: one line says why and what to do. */
export class EmbeddedPostgresError extends Error {
  constructor(why: string, whatToDo: string) {
    super(
      `embedded PostgreSQL could not start: ${why}; ${whatToDo} (or set DATABASE_URL to use your own PostgreSQL)`,
    );
  }
}
