import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './processes';

const run = promisify(execFile);

export interface StoppablePostgres {
  url: string;
  /** Stops the server as an operator would (`pg_ctl stop -m fast`): sessions end with 57P01. */
  stop(): Promise<void>;
  /** Starts it again on the same port, so clients reconnect to the address they know. */
  start(): Promise<void>;
  /** Freezes every process of the server (SIGSTOP): connections stay open, nothing answers. */
  freeze(): void;
  /** Lets it run again (SIGCONT). */
  thaw(): void;
  destroy(): Promise<void>;
}

/** A throwaway embedded PostgreSQL the caller can stop and start again, for outage tests. */
export async function startStoppablePostgres(): Promise<StoppablePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'funnel-crm-pg-outage-'));
  // The product's own start-up, in a plain Node process: the binaries package is ESM, which jest's
  // module system cannot load. The server outlives that process (pg_ctl detaches it). It also
  // names where the cluster and the pg_ctl the server account can run ended up.
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
  const { url, cluster, account } = started;
  const port = new URL(url).port;
  const pgCtl = (args: string[]) =>
    run(started.pgCtl, [...args, '-D', cluster], {
      ...account,
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
  /** Sends `signal` to the server and every process of it: SIGSTOP freezes it, answering nothing. */
  const signalServer = (signal: NodeJS.Signals) => {
    const postmaster = Number(readFileSync(join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    for (const pid of [postmaster, ...children]) {
      try {
        process.kill(pid, signal);
      } catch (error) {
        // A child that ended since the list was read (a backend whose client left) needs no signal.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH' || pid === postmaster) throw error;
      }
    }
  };
  return {
    url,
    stop: async () => {
      await pgCtl(['stop', '-w', '-m', 'fast']);
    },
    start: async () => {
      await pgCtl([
        'start',
        '-w',
        '-l',
        join(dirname(cluster), 'postgres.log'),
        '-o',
        `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
      ]);
    },
    freeze: () => signalServer('SIGSTOP'),
    thaw: () => signalServer('SIGCONT'),
    destroy: async () => {
      await pgCtl(['stop', '-w', '-m', 'immediate']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
      // As root the cluster may live in the shared folder (see embedded-postgres-layout.ts).
      if (!cluster.startsWith(dir)) await rm(dirname(cluster), { recursive: true, force: true });
    },
  };
}
