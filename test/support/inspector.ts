import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { nodeAtLeast } from './node-runtime';
import { freePort, ROOT, waitForHttp } from './processes';

export const CHROMIUM = '/usr/bin/chromium';

const INSPECTOR = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);

export interface Inspector {
  /** The web UI's URL with its API token, as the Inspector prints it. */
  url: string;
  close(): Promise<void>;
}

/** Stops a child process this suite started and waits for it to exit. */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * MCP Inspector 2.x (the pinned devDependency, Node 22+) serving its web UI on a free loopback port,
 * with its storage and secrets in `home` and in memory: nothing of the user's is read or written,
 * nothing is downloaded, no browser is opened.
 */
export async function startInspector(home: string): Promise<Inspector> {
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  const child = spawn(nodeAtLeast(22), [INSPECTOR, '--web'], {
    cwd: home,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      CLIENT_PORT: String(port),
      MCP_SANDBOX_PORT: '0',
      MCP_APP_ORIGIN_PORT: '0',
      MCP_STORAGE_DIR: join(home, 'storage'),
      MCP_INSPECTOR_SECRET_STORE: 'memory',
      MCP_INSPECTOR_API_TOKEN: token,
      MCP_AUTO_OPEN_ENABLED: 'false',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForHttp(`http://127.0.0.1:${port}/`, 60_000);
  return {
    url: `http://127.0.0.1:${port}/?MCP_INSPECTOR_API_TOKEN=${token}`,
    close: () => stopProcess(child),
  };
}

/** Debian's Chromium, headless, on a fresh profile; fails (never skips) when it is not installed. */
export async function launchChromium(userDataDir: string): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium), as npm test does as root`,
    );
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // The Inspector asks Google Fonts for its typefaces; there is no network, so answer at once.
  await context.route(/fonts\.(googleapis|gstatic)\.com/, (route) => route.abort());
  return context;
}
