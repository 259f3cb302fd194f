import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';

export const FUNNEL_DASHBOARD_URI = 'ui://funnel-crm/dashboard.html';

// The app's own markup, style and script; the ext-apps app-side bridge is inlined where it says so.
const TEMPLATE = join(__dirname, 'funnel-dashboard.html');
const BRIDGE_SLOT = '<script data-inline="@modelcontextprotocol/ext-apps"></script>';
// The names of the bridge the app uses (window-free: they stay inside the app's script scope).
const BRIDGE_EXPORTS = ['App', 'applyDocumentTheme', 'applyHostStyleVariables'];

let html: string | undefined;

/**
 * The dashboard as one self-contained document: nothing is fetched, so it works under the default
 * MCP App content security policy (inline script and style, no connections). Built once per process.
 */
export function funnelDashboardHtml(): string {
  if (html === undefined) {
    const template = readFileSync(TEMPLATE, 'utf8');
    const at = template.indexOf(BRIDGE_SLOT);
    if (at < 0) throw new Error(`${TEMPLATE} lacks the bridge slot`);
    html =
      template.slice(0, at) +
      `<script>${appBridgeScript()}</script>` +
      template.slice(at + BRIDGE_SLOT.length);
  }
  return html;
}

/**
 * The ext-apps browser bundle (`app-with-deps`: the App class with its dependencies, an ES module)
 * as a classic script defining `McpExtApps`: its closing export list becomes the function's result.
 */
function appBridgeScript(): string {
  const file = require.resolve('@modelcontextprotocol/ext-apps/app-with-deps');
  const source = readFileSync(file, 'utf8');
  const at = source.lastIndexOf('export{');
  const list = at < 0 ? null : /^export\{([^}]*)\};?\s*$/.exec(source.slice(at));
  if (!list || /<\/script|<!--/i.test(source)) throw new Error(`${file} cannot be inlined: unexpected shape`);
  const locals = new Map(
    list[1].split(',').map((entry) => {
      const [local, name = local] = entry.trim().split(/\s+as\s+/);
      return [name, local] as const;
    }),
  );
  const picked = BRIDGE_EXPORTS.map((name) => {
    const local = locals.get(name);
    if (!local) throw new Error(`${file} does not export ${name}`);
    return `${name}: ${local}`;
  });
  return `const McpExtApps = (() => {\n'use strict';\n${source.slice(0, at)}\nreturn { ${picked.join(', ')} };\n})();`;
}

/** Lists and serves the dashboard's HTML (resources/list, resources/read). */
export function registerFunnelDashboardResource(server: McpServer): void {
  server.registerResource(
    'funnel_dashboard',
    FUNNEL_DASHBOARD_URI,
    {
      title: 'Funnel dashboard',
      description: "The MCP App that draws show_funnel_dashboard's result: KPIs and charts of a funnel",
      mimeType: RESOURCE_MIME_TYPE,
    },
    (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: RESOURCE_MIME_TYPE,
          text: funnelDashboardHtml(),
          // No connections, no external resources: the host's default policy fits; a border frames it.
          _meta: { ui: { prefersBorder: true } },
        },
      ],
    }),
  );
  // One fixed resource: there is no change to announce, and a stateless server could not.
  server.server.registerCapabilities({ resources: { listChanged: undefined } });
}
