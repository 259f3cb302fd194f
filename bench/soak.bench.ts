/**
 * `npm run bench:soak` (SOAK_SECONDS, default 60)
 *
 * Mixed load on the real server process (its own throwaway PostgreSQL, loopback only): contact
 * lists, reads, creates and updates, event batches, charts and MCP tool calls, over several API
 * keys at different rates against RATE_LIMIT_PER_MINUTE. Prints the 5xx count, p50/p99 per kind,
 * the server's RSS at start and end, and each key's accepted and refused (429) requests.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runMigrations, startThrowawayPostgres } from '@app/core';
import { databaseSchema } from '../db/schema';
import { freePort, waitForHttp } from '../test/support/processes';
import { startTokenIssuer } from '../test/support/token-issuer';
import { createSoakFixtures, SoakKey } from './soak/soak-fixtures';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const LIMIT_PER_MINUTE = 600;
const AUDIENCE = 'https://api.funnel.example';
const NAMESPACE = 'https://funnel.example';
const KINDS = ['list', 'read', 'create', 'update', 'events', 'chart', 'mcp'] as const;
type Kind = (typeof KINDS)[number];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;

async function main(): Promise<void> {
  const pg = await startThrowawayPostgres();
  const issuer = await startTokenIssuer({ audience: AUDIENCE });
  try {
    await runMigrations(pg.url, databaseSchema);
    // Two keys stay under the limit, one runs over it, one is a second company at a trickle.
    const keys = await createSoakFixtures(pg.url, [
      { name: 'steady-a', perSecond: 6 },
      { name: 'steady-b', perSecond: 6 },
      { name: 'greedy', perSecond: 40 },
      { name: 'trickle', perSecond: 1 },
    ]);
    const port = await freePort();
    const child = spawn(process.execPath, [join(__dirname, '..', 'scripts', 'start.js')], {
      cwd: join(__dirname, '..'),
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'error',
        DATABASE_URL: pg.url,
        PORT: String(port),
        RATE_LIMIT_PER_MINUTE: String(LIMIT_PER_MINUTE),
        IDP_URL: issuer.url,
        OAUTH_CLIENT_ID: 'soak-client',
        OAUTH_AUDIENCE: AUDIENCE,
        OAUTH_CLAIM_NAMESPACE: NAMESPACE,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    try {
      await waitForHttp(`${baseUrl}/health`, 120_000);
      await run(baseUrl, keys, child.pid as number, issuer);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  } finally {
    await issuer.close();
    await pg.destroy();
  }
}

async function run(
  baseUrl: string,
  keys: SoakKey[],
  pid: number,
  issuer: Awaited<ReturnType<typeof startTokenIssuer>>,
): Promise<void> {
  const latencies = Object.fromEntries(KINDS.map((k) => [k, [] as number[]])) as Record<Kind, number[]>;
  const perKey = Object.fromEntries(keys.map((k) => [k.name, { accepted: 0, refused: 0, other: 0 }]));
  const statuses: Record<string, number> = {};
  const contacts = new Map<string, string[]>(keys.map((k) => [k.name, []]));
  const tokens = new Map<string, string>();
  for (const k of keys) {
    tokens.set(
      k.name,
      await issuer.sign({ [`${NAMESPACE}/user_metadata`]: { companyId: k.companyId, subscriptionId: 's' } }),
    );
  }
  let sequence = 0;

  const request = async (k: SoakKey, kind: Kind): Promise<number> => {
    const n = ++sequence;
    const base = `${baseUrl}/v1/funnels/${k.funnelId}`;
    const json = { 'content-type': 'application/json', 'x-service-api-key': k.key };
    const known = contacts.get(k.name) as string[];
    const someContact = known[n % Math.max(known.length, 1)];
    const now = new Date();
    const from = new Date(now.getTime() - 86_400_000).toISOString();
    let url: string;
    let init: RequestInit = { headers: json };
    switch (kind) {
      case 'read':
      case 'update':
        if (!someContact) return request(k, 'create');
        url = kind === 'read' ? `${base}/contacts/${someContact}` : `${base}/contacts/${someContact}/values`;
        if (kind === 'update')
          init = {
            method: 'PUT',
            headers: json,
            body: JSON.stringify({ fieldName: 'city', value: `City ${n}` }),
          };
        break;
      case 'list':
        url = `${base}/contacts?limit=20&sortField=email&sortOrder=${n % 2 ? 1 : -1}`;
        break;
      case 'create':
        url = `${base}/contacts`;
        init = {
          method: 'POST',
          headers: { ...json, 'idempotency-key': `soak-${n}` },
          body: JSON.stringify({ email: `soak-${n}@example.com`, firstName: `Soak ${n}` }),
        };
        break;
      case 'events': {
        url = `${base}/events`;
        const session = `soak-${n}`;
        const at = (ms: number) => new Date(now.getTime() - 60_000 + ms).toISOString();
        const events = [
          {
            type: 'session_start',
            sessionId: session,
            occurredAt: at(0),
            visitorId: `v${n}`,
            device: n % 2 ? 'mobile' : 'desktop',
          },
          {
            type: 'page_view',
            sessionId: session,
            occurredAt: at(1000),
            pageSlug: 'start',
            timeOnPageMs: 1200,
          },
          {
            type: 'button_click',
            sessionId: session,
            occurredAt: at(1500),
            pageSlug: 'start',
            buttonId: 'cta',
            buttonLabel: 'Go',
          },
          { type: 'page_view', sessionId: session, occurredAt: at(2000), pageSlug: 'details' },
        ];
        init = { method: 'POST', headers: json, body: JSON.stringify({ events }) };
        break;
      }
      case 'chart':
        url = `${base}/metrics/charts/${n % 2 ? 'chart_visitor_devices' : 'chart_page_to_page_conversion_rate'}?from=${from}&to=${now.toISOString()}`;
        break;
      case 'mcp':
        url = `${baseUrl}/mcp`;
        init = {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${tokens.get(k.name)}`,
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: n,
            method: 'tools/call',
            params: { name: 'list_contacts', arguments: { funnelId: k.funnelId, limit: 10 } },
          }),
        };
        break;
    }
    const started = performance.now();
    const res = await fetch(url, init);
    const text = await res.text();
    latencies[kind].push(performance.now() - started);
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (kind !== 'mcp') {
      const tally = perKey[k.name];
      if (res.status === 429) tally.refused++;
      else if (res.status < 400) tally.accepted++;
      else tally.other++;
    }
    if (kind === 'create' && res.status === 201)
      known.push((JSON.parse(text) as { data: { id: string } }).data.id);
    return res.status;
  };

  const mix: Kind[] = ['list', 'list', 'read', 'read', 'create', 'update', 'events', 'chart', 'mcp'];
  const deadline = Date.now() + SECONDS * 1000;
  const rssStart = rssMb(pid);
  // Each key runs two clients, each pacing itself to half the key's rate (greedy: as fast as it can).
  const client = async (k: SoakKey, c: number) => {
    for (let i = c; Date.now() < deadline; i += 2) {
      const started = Date.now();
      await request(k, mix[i % mix.length]);
      await sleep(Math.max(0, 2000 / k.perSecond - (Date.now() - started)));
    }
  };
  await Promise.all(keys.flatMap((k) => [client(k, 0), client(k, 1)]));
  const rssEnd = rssMb(pid);

  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  const fiveHundreds = Object.entries(statuses)
    .filter(([s]) => Number(s) >= 500)
    .reduce((a, [, n]) => a + n, 0);
  console.log(`soak: ${SECONDS} s, ${total} requests, statuses ${JSON.stringify(statuses)}`);
  console.log(`5xx: ${fiveHundreds}`);
  console.log('kind      count   p50 ms   p99 ms');
  for (const kind of KINDS) {
    const sorted = [...latencies[kind]].sort((a, b) => a - b);
    console.log(
      `${kind.padEnd(8)} ${String(sorted.length).padStart(6)} ${percentile(sorted, 50).toFixed(1).padStart(8)} ${percentile(sorted, 99).toFixed(1).padStart(8)}`,
    );
  }
  console.log(`server RSS: ${rssStart.toFixed(0)} MB at start, ${rssEnd.toFixed(0)} MB at end`);
  console.log(`key        limit/min   accepted   refused(429)   other 4xx`);
  for (const k of keys) {
    const t = perKey[k.name];
    console.log(
      `${k.name.padEnd(10)} ${String(LIMIT_PER_MINUTE).padStart(9)} ${String(t.accepted).padStart(10)} ${String(t.refused).padStart(14)} ${String(t.other).padStart(11)}`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
