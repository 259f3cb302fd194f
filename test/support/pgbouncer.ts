import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './processes';

/** Debian's PgBouncer (1.18 on bookworm): it keeps no prepared statement across transactions. */
export const DEBIAN_PGBOUNCER = '/usr/sbin/pgbouncer';
/**
 * A PgBouncer that keeps prepared statements across transactions (1.21 or later, whose
 * `max_prepared_statements` defaults to 200 from 1.22): Debian's 1.24 source built by
 * `scripts/build-pgbouncer.sh` (`npm test` runs it), or another at PGBOUNCER_PREPARED_BIN.
 */
export const PREPARED_PGBOUNCER =
  process.env.PGBOUNCER_PREPARED_BIN ?? '/usr/local/lib/funnel-crm/pgbouncer-1.24.1/bin/pgbouncer';

export interface PgBouncer {
  /** `databaseUrl` with its host and port replaced by PgBouncer's. */
  urlFor(databaseUrl: string): string;
  /** PgBouncer's process (it runs in the foreground), for measuring its CPU. */
  pid: number;
  /** `SHOW STATS` of its admin console, each counter summed over the databases. */
  stats(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/**
 * Debian's PgBouncer on a free loopback port in front of the server of `serverUrl`, in
 * transaction pooling and otherwise with PgBouncer's defaults (which refuse startup parameters
 * such as statement_timeout). Its config, log and socket live in a temporary folder it removes.
 * Fails (never skips) when pgbouncer is not installed.
 */
export async function startPgBouncer(serverUrl: string, binary = DEBIAN_PGBOUNCER): Promise<PgBouncer> {
  if (!existsSync(binary)) {
    throw new Error(
      binary === DEBIAN_PGBOUNCER
        ? `${binary} is not installed; install it (Debian: apt-get install -y pgbouncer) to run this suite`
        : `${binary} does not exist; build it with scripts/build-pgbouncer.sh (or set PGBOUNCER_PREPARED_BIN)`,
    );
  }
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const dir = await mkdtemp(join(tmpdir(), 'funnel-crm-pgbouncer-'));
  const port = await freePort();
  const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`;
  await writeFile(join(dir, 'userlist.txt'), `${quoted(user)} ${quoted(password)}\n`, { mode: 0o600 });
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      // Only lets this user read the admin console's counters; pooling keeps every default.
      `admin_users = ${user}`,
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: as root it runs as the `postgres` account, which owns its folder.
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']));
    const gid = Number(execFileSync('id', ['-g', 'postgres']));
    for (const file of ['', 'userlist.txt', 'pgbouncer.ini']) await chown(join(dir, file), uid, gid);
    await chmod(dir, 0o700);
  }
  const child: ChildProcess = spawn(
    binary,
    [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const urlFor = (databaseUrl: string) => {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    return url.toString();
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new Client({ connectionString: urlFor(serverUrl) });
    const ready = await client.connect().then(
      () => client.query('SELECT 1').then(() => true),
      () => false,
    );
    await client.end().catch(() => undefined);
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = await readFile(join(dir, 'pgbouncer.log'), 'utf8').catch(() => '');
      await stop();
      throw new Error(`pgbouncer did not start on port ${port}: ${output}${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stats = async () => {
    const url = new URL(urlFor(serverUrl));
    url.pathname = '/pgbouncer';
    const admin = new Client({ connectionString: url.toString() });
    await admin.connect();
    try {
      const { rows } = await admin.query<Record<string, string>>('SHOW STATS');
      const sums: Record<string, number> = {};
      for (const row of rows) {
        for (const [name, value] of Object.entries(row)) {
          if (name.startsWith('total_')) sums[name] = (sums[name] ?? 0) + Number(value);
        }
      }
      return sums;
    } finally {
      await admin.end();
    }
  };
  return { urlFor, pid: child.pid ?? 0, stats, stop };
}
