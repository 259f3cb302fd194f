import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { join } from 'node:path';

/** The demo funnel's pages, in funnel order (the slugs and titles of the demo seed's first funnel). */
export const DEMO_PAGES = [
  { slug: 'start', title: 'Welcome' },
  { slug: 'goals', title: 'Your goals' },
  { slug: 'budget', title: 'Budget' },
  { slug: 'contact', title: 'Contact details' },
  { slug: 'thank-you', title: 'Thank you' },
] as const;

const PAGES_DIR = join(__dirname, 'pages');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One page of the funnel: the layout with the tracker's tag and the page's content. */
function render(apiBase: string, funnelId: string, slug: string): string | undefined {
  const page = DEMO_PAGES.find((p) => p.slug === slug);
  if (!page) return undefined;
  const layout = readFileSync(join(PAGES_DIR, 'layout.html'), 'utf8');
  const content = readFileSync(join(PAGES_DIR, `${slug}.html`), 'utf8');
  const values: Record<string, string> = {
    API: apiBase,
    FUNNEL: funnelId,
    SLUG: page.slug,
    TITLE: page.title,
    CONTENT: content,
  };
  return layout.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name]);
}

/**
 * A small multi-page funnel on its own origin, using the tracker and the lead form, as a page
 * builder would publish it: `/{funnelId}/start.html?utm_source=…` and the pages it links to.
 * For development and the browser tests; never part of the service.
 */
export async function startDemoFunnel(options: {
  apiBase: string;
  port: number;
  host?: string;
}): Promise<{ server: Server; origin: string }> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    const [funnelId, file] = new URL(req.url ?? '/', 'http://demo').pathname.split('/').filter(Boolean);
    const html =
      funnelId && UUID.test(funnelId) && file?.endsWith('.html')
        ? render(options.apiBase, funnelId.toLowerCase(), file.slice(0, -'.html'.length))
        : undefined;
    if (html === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Open /{funnelId}/start.html (the demo seed prints the funnel ids)\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(html);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, resolve);
  });
  const { port } = server.address() as { port: number };
  return { server, origin: `http://${host}:${port}` };
}
