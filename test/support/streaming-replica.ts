import { execFile, execFileSync } from 'node:child_process';
import { appendFile, chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort, ROOT } from './processes';

const run = promisify(execFile);

export interface StreamingReplica {
  /** The primary's database, migrated. */
  primaryUrl: string;
  /** The same database on the hot standby that streams the primary's WAL. */
  replicaUrl: string;
  /** Holds the standby's replay where it is (it still receives WAL): it falls behind. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the standby as an operator would (`pg_ctl stop -m fast`). */
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * A primary and a streaming hot standby of it, both embedded PostgreSQL 17. The embedded binaries
 * have no pg_basebackup, so the standby is made the way a base backup is: the fresh primary, once
 * migrated, is stopped cleanly and its data directory copied, with `standby.signal` and
 * `primary_conninfo` added; then both start. (PostgreSQL 17's defaults already allow it:
 * wal_level=replica, max_wal_senders=10, and initdb's pg_hba.conf admits replication from
 * 127.0.0.1 with the password.)
 */
export async function startStreamingReplica(): Promise<StreamingReplica> {
  const dir = await mkdtemp(join(tmpdir(), 'funnel-crm-pg-replica-'));
  // The postgres account (tests run as root) must reach the clusters kept under this folder.
  await chmod(dir, 0o755);
  const script = `(async () => {
    const layout = require('./libs/core/src/database/embedded-postgres-layout');
    const handle = await require('./libs/core/src/database/embedded-postgres').acquireEmbeddedPostgres({ dir: ${JSON.stringify(dir)} });
    const account = await layout.postgresAccount();
    const pgCtl = (await layout.binariesFor(account)).pg_ctl;
    const cluster = require('node:fs').realpathSync(${JSON.stringify(join(dir, 'postgres'))});
    console.log(JSON.stringify({ url: handle.url, pgCtl, cluster, account: account ?? {} }));
  })()`;
  const { stdout } = await run(process.execPath, ['-r', '@swc-node/register', '-e', script], { cwd: ROOT });
  const started = JSON.parse(stdout.trim().split('\n').pop()!) as {
    url: string;
    pgCtl: string;
    cluster: string;
    account: { uid?: number; gid?: number };
  };
  const { url: primaryUrl, cluster, account } = started;
  const standby = join(dirname(cluster), 'standby');
  const primaryPort = new URL(primaryUrl).port;
  const replicaPort = await freePort();
  const pgCtl = (dataDir: string, args: string[]) =>
    run(started.pgCtl, [...args, '-D', dataDir], { ...account, env: { ...process.env, LC_MESSAGES: 'C' } });
  const start = async (dataDir: string, port: number | string, log: string) => {
    const logFile = join(dirname(cluster), log);
    await writeFile(logFile, '', { flag: 'a' });
    if (account.uid !== undefined) await chown(logFile, account.uid, account.gid!);
    await pgCtl(dataDir, [
      'start',
      '-w',
      '-t',
      '60',
      '-l',
      logFile,
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
    ]);
  };

  try {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'migrate.js')], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: primaryUrl, NODE_ENV: 'test' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await pgCtl(cluster, ['stop', '-w', '-m', 'fast']);
    await run('cp', ['-a', cluster, standby]);
    const credentials = new URL(primaryUrl);
    const conninfo = `host=127.0.0.1 port=${primaryPort} user=${decodeURIComponent(credentials.username)} password=${decodeURIComponent(credentials.password)} application_name=standby`;
    await writeFile(join(standby, 'standby.signal'), '');
    await appendFile(join(standby, 'postgresql.auto.conf'), `primary_conninfo = '${conninfo}'\n`);
    if (account.uid !== undefined) {
      for (const file of ['standby.signal', 'postgresql.auto.conf']) {
        await chown(join(standby, file), account.uid, account.gid!);
      }
    }
    await start(cluster, primaryPort, 'postgres.log');
    await start(standby, replicaPort, 'standby.log');
  } catch (error) {
    await pgCtl(cluster, ['stop', '-w', '-m', 'immediate']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  const replicaUrl = new URL(primaryUrl);
  replicaUrl.port = String(replicaPort);
  const onReplica = async (sql: string) => {
    const client = new Client({ connectionString: replicaUrl.toString() });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  return {
    primaryUrl,
    replicaUrl: replicaUrl.toString(),
    pauseReplay: () => onReplica('SELECT pg_wal_replay_pause()'),
    resumeReplay: () => onReplica('SELECT pg_wal_replay_resume()'),
    stopReplica: async () => {
      await pgCtl(standby, ['stop', '-w', '-m', 'fast']);
    },
    startReplica: async () => {
      await start(standby, replicaPort, 'standby.log');
    },
    destroy: async () => {
      await pgCtl(standby, ['stop', '-w', '-m', 'immediate']).catch(() => undefined);
      await pgCtl(cluster, ['stop', '-w', '-m', 'immediate']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
      // As root the clusters may live in the shared folder (see embedded-postgres-layout.ts).
      if (!cluster.startsWith(dir)) await rm(dirname(cluster), { recursive: true, force: true });
    },
  };
}
