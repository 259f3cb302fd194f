import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

// What the embedded PostgreSQL's process can tell about a cluster's server from outside it.

/** A port nothing listens on now, on the loopback address. */
export async function freePort(): Promise<number> {
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

/** True while process `pid` exists (EPERM: it does, under another account). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Port of the server running on this cluster, read from postmaster.pid, if one runs. */
export async function runningPort(clusterDir: string): Promise<number | undefined> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  const status = lines[7]?.trim();
  if (!pid || !port || !isAlive(pid)) return undefined;
  return status === 'ready' ? port : undefined;
}

/** The first line of what a failed tool printed, for a one-line error. */
export function firstLine(error: unknown): string {
  const { stderr, message } = error as { stderr?: string; message?: string };
  return (stderr || message || String(error)).split('\n').find((line) => line.trim()) ?? 'unknown error';
}

/** The last FATAL or PANIC line of the server's log, which says why it did not start. */
export async function logReason(logFile: string): Promise<string | undefined> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .reverse()
    .find((line) => /\b(FATAL|PANIC):/.test(line))
    ?.trim();
}
