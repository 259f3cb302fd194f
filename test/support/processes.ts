import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON object the admin CLI prints. */
  json: Record<string, unknown>;
}

/** Runs the admin CLI as an operator would (`npm run --silent admin -- ...`), without npm's overhead. */
export function runAdmin(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'scripts', 'admin.js'), ...args],
      { cwd: ROOT, env: { ...process.env, NODE_ENV: 'development', ...env }, timeout: 180_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(stdout || stderr) as Record<string, unknown>;
        } catch {
          // left empty: the assertions on stdout/stderr show what was printed
        }
        resolve({ code, stdout, stderr, json });
      },
    );
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 200 or the deadline passes. */
export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export interface ServerProcess {
  baseUrl: string;
  /** SIGKILL: nothing in the server gets to clean up. Resolves once it has exited. */
  kill(): Promise<void>;
}

/** `npm start` as a separate process (NODE_ENV=test) on a free port, ready when /health answers. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      PORT: String(port),
      DEV_IDP_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/health`, 120_000).catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  return { baseUrl, kill };
}
