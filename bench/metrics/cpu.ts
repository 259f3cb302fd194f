import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime (fields 14-17 of stat; 12-15 after the command name)
    return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  } catch {
    return 0;
  }
}

function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** CPU milliseconds used so far by a PostgreSQL server (the postmaster and all its processes). */
export function postgresCpuMs(postmasterPid: number): number {
  let ticks = processTicks(postmasterPid);
  for (const child of children(postmasterPid)) ticks += processTicks(child);
  return ticks * TICK_MS;
}

/** CPU milliseconds used so far by another process (and its waited-for children). */
export function processCpuMs(pid: number): number {
  return processTicks(pid) * TICK_MS;
}

/** CPU milliseconds used so far by this Node.js process. */
export function nodeCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * The machine's CPU time so far, all cores, and the part of it taken by the hypervisor for other
 * guests (steal): on a shared virtual machine, steal slows every request of a measurement.
 */
export function machineTicks(): { total: number; steal: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    // cpu user nice system idle iowait irq softirq steal ...
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    return { total: ticks.reduce((sum, t) => sum + t, 0), steal: ticks[7] };
  } catch {
    return { total: 0, steal: 0 };
  }
}

/** The process id of the PostgreSQL server at `url` (its postmaster.pid). */
export async function postmasterPid(url: string): Promise<number> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ data_directory: string }>('SHOW data_directory');
    return Number(readFileSync(join(rows[0].data_directory, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } finally {
    await client.end();
  }
}
