/**
 * The CPU a bench's servers use, from /proc (Linux): a busy machine changes how fast a request is
 * answered far more than how much CPU it takes, so the benches of the public routes print both.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

/** CPU seconds each process used so far (utime + stime of /proc/{pid}/stat, 100 ticks a second). */
export function cpuSeconds(pids: number[]): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = statFields(pid);
      seconds.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // A backend that ended meanwhile.
    }
  }
  return seconds;
}

/** CPU seconds used since `before`, by its processes and those started since (from zero). */
export function cpuSince(before: Map<number, number>, now: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of now) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** The fields of /proc/{pid}/stat after the command's name. */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The bench database's server and its backends: the PostgreSQL work each server causes. */
export async function postgresPids(url: string): Promise<number[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ dir: string }>('SELECT current_setting($1) AS dir', [
    'data_directory',
  ]);
  await client.end();
  const master = Number(readFileSync(join(rows[0].dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && Number(statFields(pid)[1]) === master;
    } catch {
      return false;
    }
  });
  return [master, ...children.map(Number)];
}
