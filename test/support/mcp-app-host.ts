import { readFile } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { ROOT } from './processes';

/**
 * The browser modules of the ext-apps host-side bridge (AppBridge) and what it imports, served from
 * node_modules as they are installed: an import map names them, no bundler is involved.
 */
const IMPORTS: Record<string, string> = {
  '@modelcontextprotocol/ext-apps/app-bridge': '@modelcontextprotocol/ext-apps/dist/src/app-bridge.js',
  '@modelcontextprotocol/client': '@modelcontextprotocol/client/dist/index.mjs',
  '@modelcontextprotocol/client/_shims': '@modelcontextprotocol/client/dist/shimsBrowser.mjs',
  '@modelcontextprotocol/core': '@modelcontextprotocol/core/dist/index.mjs',
  '@modelcontextprotocol/core/internal': '@modelcontextprotocol/core/dist/internal.mjs',
  'zod/v4': 'zod/v4/index.js',
  eventsource: 'eventsource/dist/index.js',
  'eventsource-parser': 'eventsource-parser/dist/index.js',
  'eventsource-parser/stream': 'eventsource-parser/dist/stream.js',
  'pkce-challenge': 'pkce-challenge/dist/index.browser.js',
};
const SERVED_PACKAGES = new Set(
  Object.values(IMPORTS).map((path) =>
    path
      .split('/')
      .slice(0, path.startsWith('@') ? 2 : 1)
      .join('/'),
  ),
);

/**
 * The content security policy MCP Apps hosts apply when a resource declares no domains (the
 * specification's default), set as the first element of the app document's head.
 */
export const DEFAULT_APP_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

// A minimal MCP Apps host: the app in a sandboxed iframe (scripts only, an opaque origin), an
// AppBridge talking to it over postMessage, the tool's arguments and result handed over once the
// app has initialized, and the iframe sized as the app asks.
const HOST_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>MCP Apps test host</title>
<script type="importmap">${JSON.stringify({
  imports: Object.fromEntries(Object.entries(IMPORTS).map(([name, path]) => [name, `/node_modules/${path}`])),
})}</script>
<style>body { margin: 0; background: #e9ecef; } iframe { display: block; width: 880px; border: 0; margin: 16px; background: #fff; }</style>
</head>
<body>
<iframe id="app" title="Funnel dashboard" sandbox="allow-scripts"></iframe>
<script type="module">
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

window.showApp = async (html, csp, toolArguments, toolResult) => {
  const iframe = document.getElementById('app');
  const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { openLinks: {} }, {
    hostContext: {
      theme: 'light', locale: 'en-US', displayMode: 'inline', platform: 'web',
      styles: { variables: { '--color-background-primary': '#ffffff', '--color-text-primary': '#1b1f24' } },
    },
  });
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  bridge.onsizechange = ({ height }) => { if (height) iframe.style.height = height + 'px'; };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  const meta = csp ? '<meta http-equiv="Content-Security-Policy" content="' + csp + '">' : '';
  iframe.srcdoc = html.replace(/<head>/i, (head) => head + meta);
  await initialized;
  await bridge.sendToolInput({ arguments: toolArguments });
  await bridge.sendToolResult(toolResult);
};
window.hostReady = true;
</script>
</body>
</html>`;

export interface AppHost {
  /** The host page's URL (its origin is the only one any request may go to). */
  url: string;
  close(): Promise<void>;
}

/** Serves the host page and, read-only, the few installed packages its import map names. */
export async function startAppHost(): Promise<AppHost> {
  const modules = join(ROOT, 'node_modules');
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://host').pathname);
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HOST_PAGE);
      return;
    }
    const file = normalize(join(ROOT, path));
    const relative = file.slice(modules.length + 1);
    const served = [...SERVED_PACKAGES].some((name) => relative.startsWith(`${name}/`));
    if (!file.startsWith(modules + '/') || !served || !/\.m?js$/.test(file)) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
