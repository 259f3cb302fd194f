import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 server binaries, when installed. */
export const PG15_BIN = '/usr/lib/postgresql/15/bin';

export function pg15Installed(): boolean {
  return existsSync(join(PG15_BIN, 'postgres'));
}

export interface DebianPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function postgresAccount(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}

/**
 * A throwaway cluster of Debian's PostgreSQL 15 on a free loopback port, trusting local
 * connections, run as the `postgres` account when the tests run as root. `settings` go to
 * postgresql.conf (shared_preload_libraries for Citus).
 */
export async function startDebianPostgres(settings: Record<string, string> = {}): Promise<DebianPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'funnel-crm-pg15-'));
  const account = await postgresAccount();
  await chmod(dir, 0o777);
  const data = join(dir, 'data');
  // HOME: libpq in the server (Citus's connections between nodes) reads files under it.
  const as = { ...account, env: { ...process.env, HOME: dir, LC_ALL: 'C', LC_MESSAGES: 'C' } };
  await run(
    join(PG15_BIN, 'initdb'),
    ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'],
    as,
  );
  const port = await freePort();
  const conf = {
    listen_addresses: "'127.0.0.1'",
    port: String(port),
    unix_socket_directories: `'${dir}'`,
    fsync: 'off',
    max_connections: '60',
    shared_buffers: '32MB',
    ...settings,
  };
  const lines = Object.entries(conf).map(([k, v]) => `${k} = ${v}`);
  await writeFile(join(data, 'postgresql.auto.conf'), `${lines.join('\n')}\n`);
  if (account.uid !== undefined)
    await run('chown', [`${account.uid}:${account.gid}`, join(data, 'postgresql.auto.conf')]);
  const log = join(dir, 'postgres.log');
  await run(join(PG15_BIN, 'pg_ctl'), ['start', '-w', '-t', '120', '-D', data, '-l', log], as);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      await run(join(PG15_BIN, 'pg_ctl'), ['stop', '-w', '-m', 'immediate', '-D', data], as).catch(
        () => undefined,
      );
      await rm(dir, { recursive: true, force: true });
    },
  };
}
