import { ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface Server {
  name: string;
  baseUrl: string;
  pid: number;
  /** The port of its Prometheus endpoint (services started by startService). */
  metricsPort?: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** Resident memory of a process in MB (VmRSS). */
export function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
}

/** A TypeScript server of bench/http run as its own process; resolves once it listens. */
export async function forkServer(name: string, file: string, args: string[], port: number): Promise<Server> {
  const child = fork(file, args, { execArgv: ['-r', '@swc-node/register'], stdio: 'inherit' });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  return { name, baseUrl: `http://127.0.0.1:${port}`, pid: child.pid!, stop: stopper(child) };
}

/** The node options and entry of a checkout's npm script, e.g. `['--flag', 'dist/…/main.js']`. */
function nodeCommand(dir: string, script: 'start' | 'start:prod'): string[] {
  const { scripts } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [runtime, ...words] = scripts[script].trim().split(/\s+/);
  if (runtime !== 'node') throw new Error(`${script} of ${dir} does not run node: ${scripts[script]}`);
  return words;
}

/**
 * The service as `npm run start:prod` runs its production build (dist/), or with `development` as
 * `npm start` runs the sources (TypeScript compiled as it loads, NODE_ENV=development); resolves
 * once it answers.
 */
export async function startService(
  dir: string,
  env: Record<string, string>,
  port: number,
  nodeArgs: string[] = [],
  name = 'service',
  development = false,
): Promise<Server> {
  const command = nodeCommand(dir, development ? 'start' : 'start:prod');
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, ...command], {
    cwd: dir,
    env: {
      ...process.env,
      ...env,
      ...(development ? { NODE_ENV: 'development' } : {}),
      PORT: String(port),
      // Each its own metrics port too, so a baseline can run beside the service.
      METRICS_PORT: String(metricsPort),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    const up = await fetch(`${baseUrl}/v1/workspaces`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() - started > 60_000) throw new Error('the service did not start within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { name, baseUrl, pid: child.pid!, metricsPort, stop: stopper(child) };
}

/** Builds a checkout's production build (`nest build api`), as `start:prod` runs it. */
export function buildService(dir: string): void {
  execFileSync(process.execPath, [require.resolve('@nestjs/cli/bin/nest.js'), 'build', 'api'], {
    cwd: dir,
    stdio: 'inherit',
  });
}

/** The environment a benchmark runs the service in: production, on `databaseUrl`. */
export function productionEnv(databaseUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    BASE_URL: 'https://bench.example.com',
    // Rate limiting stays on (every request counted); the limit is out of reach.
    RATE_LIMIT_PER_MINUTE: '1000000000',
    IDP_URL: 'http://127.0.0.1:9/',
    OAUTH_CLIENT_ID: 'bench',
    OAUTH_AUDIENCE: 'bench',
    OAUTH_CLAIM_NAMESPACE: 'https://bench.example.com',
  };
}
