import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { firstLine, freePort, isAlive, logReason, runningPort } from './embedded-postgres-probes';
import {
  Account,
  binariesFor,
  Binaries,
  clusterDirFor,
  EmbeddedPostgresError,
  postgresAccount,
} from './embedded-postgres-layout';

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
  /**
   * Watches the server and starts it again on the same port when it dies (development servers);
   * `onLost` is called when it cannot be restarted. Returns a function that stops watching.
   */
  keepAlive(onLost: (error: Error) => void, intervalMs?: number): () => void;
}

interface Cluster {
  dir: string;
  logFile: string;
  account?: Account;
  binaries: Binaries;
}

function asAccount(cluster: Cluster) {
  return cluster.account ? { uid: cluster.account.uid, gid: cluster.account.gid } : {};
}

async function initialise(cluster: Cluster, credentialsFile: string): Promise<void> {
  const credentials: Credentials = { user: SUPERUSER, password: randomBytes(18).toString('base64url') };
  const workDir = await mkdtemp(join(tmpdir(), 'pg-init-'));
  const passwordFile = join(workDir, 'password');
  try {
    // Written first: a cluster with PG_VERSION and no credentials is one nobody can log in to
    // (setAside), never one another process is initialising.
    await writeFile(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
    await mkdir(cluster.dir, { recursive: true, mode: 0o700 });
    await writeFile(passwordFile, `${credentials.password}\n`, { mode: 0o600 });
    if (cluster.account) {
      for (const path of [cluster.dir, workDir, passwordFile]) {
        await chown(path, cluster.account.uid, cluster.account.gid);
      }
    }
    await run(
      cluster.binaries.initdb,
      [
        `--pgdata=${cluster.dir}`,
        '--auth=password',
        `--username=${credentials.user}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        // A fixed locale makes sort orders the same on every machine.
        '--locale=C',
      ],
      { ...asAccount(cluster), env: { ...process.env, LC_ALL: 'C' } },
    );
  } catch (error) {
    // A half-made cluster would make the next start fail too.
    await rm(cluster.dir, { recursive: true, force: true });
    await rm(credentialsFile, { force: true });
    throw new EmbeddedPostgresError(
      `initdb failed: ${firstLine(error)}`,
      `check that ${cluster.dir} can be written`,
    );
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function startServer(cluster: Cluster, port: number): Promise<void> {
  if (cluster.account) {
    await writeFile(cluster.logFile, '', { flag: 'a' });
    await chown(cluster.logFile, cluster.account.uid, cluster.account.gid);
  }
  await run(
    cluster.binaries.pg_ctl,
    [
      'start',
      '-w',
      '-t',
      '60',
      '-D',
      cluster.dir,
      '-l',
      cluster.logFile,
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
    ],
    { ...asAccount(cluster), env: { ...process.env, LC_MESSAGES: 'C' } },
  );
}

/**
 * A cluster whose credentials are gone from DATA_DIR (left by an earlier checkout at the same
 * path, whose `.data` went with it, or the file removed by hand): nobody can log in to it, and
 * every start would fail on the missing file. It is renamed, not deleted, so its data can still be
 * reached by hand, and a new cluster is made in its place. A running one is left alone.
 */
async function setAside(
  cluster: Cluster,
  credentialsFile: string,
  log: (line: string) => void,
): Promise<void> {
  if ((await runningPort(cluster.dir)) !== undefined) {
    throw new EmbeddedPostgresError(
      `a server runs on ${cluster.dir}, whose credentials are not in ${credentialsFile}`,
      `stop it (pg_ctl stop -D ${cluster.dir}) or restore that file`,
    );
  }
  const aside = `${cluster.dir}-without-credentials-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await rename(cluster.dir, aside);
  log(`embedded PostgreSQL in ${cluster.dir} had no credentials in ${credentialsFile}: kept as ${aside}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The cluster of `dir` and its superuser's credentials: set aside or initialised as needed. */
async function openCluster(
  dir: string,
  log: (line: string) => void,
): Promise<{ cluster: Cluster; credentials: Credentials }> {
  const credentialsFile = join(dir, 'postgres-credentials.json');
  const account = await postgresAccount();
  const clusterDir = await clusterDirFor(dir, account);
  const cluster: Cluster = {
    dir: clusterDir,
    logFile: join(dirname(clusterDir), 'postgres.log'),
    account,
    binaries: await binariesFor(account),
  };
  if (existsSync(join(clusterDir, 'PG_VERSION')) && !existsSync(credentialsFile)) {
    await setAside(cluster, credentialsFile, log);
  }
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await initialise(cluster, credentialsFile);
  }
  return { cluster, credentials: JSON.parse(await readFile(credentialsFile, 'utf8')) as Credentials };
}

/** The port of the cluster's server: the running one's, or a new one's this process started. */
async function startOrJoin(
  cluster: Cluster,
  log: (line: string) => void,
): Promise<{ port: number; started: boolean }> {
  let port = await runningPort(cluster.dir);
  for (let attempt = 0; port === undefined && attempt < 3; attempt++) {
    const candidate = await freePort();
    try {
      await startServer(cluster, candidate);
      log(`embedded PostgreSQL started on 127.0.0.1:${candidate}`);
      return { port: candidate, started: true };
    } catch {
      // Another process may have started the cluster at the same moment: join it if so.
      await sleep(500 * (attempt + 1));
      port = await runningPort(cluster.dir);
    }
  }
  if (port === undefined) {
    const reason = (await logReason(cluster.logFile)) ?? 'the server did not become ready';
    throw new EmbeddedPostgresError(reason, `see ${cluster.logFile}`);
  }
  return { port, started: false };
}

/**
 * Every `intervalMs`, starts the server again on `port` when it is not running; `onLost` when it
 * cannot be. Returns a function that stops watching.
 */
function watchServer(
  cluster: Cluster,
  port: number,
  log: (line: string) => void,
  onLost: (error: Error) => void,
  intervalMs: number,
): () => void {
  let restarting = false;
  let watching = true;
  const timer = setInterval(() => {
    if (restarting || !watching) return;
    restarting = true;
    void (async () => {
      if ((await runningPort(cluster.dir)) !== undefined || !watching) return;
      log('embedded PostgreSQL is not running: starting it again');
      try {
        await startServer(cluster, port);
        log(`embedded PostgreSQL started again on 127.0.0.1:${port}`);
      } catch (error) {
        // Another process may have restarted it at the same moment.
        if ((await runningPort(cluster.dir)) !== undefined) return;
        clearInterval(timer);
        const reason = (await logReason(cluster.logFile)) ?? firstLine(error);
        onLost(
          new EmbeddedPostgresError(
            `it stopped and could not be restarted: ${reason}`,
            `see ${cluster.logFile}`,
          ),
        );
      }
    })().finally(() => (restarting = false));
  }, intervalMs);
  timer.unref();
  return () => {
    watching = false;
    clearInterval(timer);
  };
}

/**
 * Starts (or joins) the embedded PostgreSQL cluster of DATA_DIR `<dir>`, so the server and the
 * admin CLI can use one database at the same time. The data survives restarts.
 */
export async function acquireEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const dir = resolve(options.dir);
  const log = options.log ?? (() => undefined);
  const usersDir = join(dir, 'postgres-users');
  const userFile = join(usersDir, String(process.pid));
  await mkdir(usersDir, { recursive: true });
  // Registered before the server is looked at, so a process releasing it now sees this one.
  await writeFile(userFile, '');
  const { cluster, credentials } = await openCluster(dir, log);
  const { port, started } = await startOrJoin(cluster, log);
  const adminUrl = `postgres://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`;
  await ensureDatabase(`${adminUrl}/postgres`, EMBEDDED_DATABASE);

  // The keepAlive watcher, halted before this process stops or releases the server, so that it
  // never starts again a server being stopped on purpose.
  let haltWatcher: () => void = () => undefined;
  const stop = async () => {
    haltWatcher();
    await run(
      cluster.binaries.pg_ctl,
      ['stop', '-w', '-m', 'fast', '-D', cluster.dir],
      asAccount(cluster),
    ).catch(() => undefined);
    log('embedded PostgreSQL stopped');
  };
  return {
    url: `${adminUrl}/${EMBEDDED_DATABASE}`,
    started,
    stop,
    release: async () => {
      haltWatcher();
      await rm(userFile, { force: true });
      if (!(await otherUsersAlive(usersDir))) await stop();
    },
    keepAlive: (onLost, intervalMs = 2000) => {
      haltWatcher = watchServer(cluster, port, log, onLost, intervalMs);
      return haltWatcher;
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
