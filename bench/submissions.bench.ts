/**
 * `npm run bench:submissions -- [--rate 100] [--duration 10] [--no-build] [--profile dir]`
 *
 * Lead-form submissions (`POST /v1/funnels/{funnelId}/submissions`) to the production build, with a
 * `contact.created` webhook automation on the funnel, at a fixed rate, exactly rate × duration of
 * them: each of a distinct visitor whose session the tracker started before. Prints the p99, then
 * counts every submission's contact (by its email) and its automation run; exits non-zero when one
 * is missing.
 */
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { cpuSeconds, cpuSince, postgresPids } from './collect/cpu';
import { startBenchDatabase } from './metrics/bench-env';
import { admin, collectingFunnel, startBenchService } from './collect/setup';
import { buildService } from './http/processes';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const RATE = Number(option('rate', '100'));
const DURATION = Number(option('duration', '10'));
// A directory to write the service's CPU profile into (node --cpu-prof).
const PROFILE = option('profile', '');
const ORIGIN = 'https://bench.example.com';
const HEADERS = {
  origin: ORIGIN,
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'content-type': 'text/plain;charset=UTF-8',
};
const ROOT = process.cwd();

async function counts(url: string, text: string, values: unknown[]): Promise<Record<string, number>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const row = (await client.query(text, values)).rows[0] as Record<string, string>;
    return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  if (!args.includes('--no-build')) buildService(ROOT);
  const pg = await startBenchDatabase();
  const visitors = RATE * DURATION * 2;
  const limits = {
    COLLECT_LIMIT_PER_ADDRESS: '1000000000',
    COLLECT_LIMIT_PER_FUNNEL: '1000000000',
    SUBMIT_LIMIT_PER_ADDRESS: '1000000000',
    SUBMIT_LIMIT_PER_FUNNEL: '1000000000',
    SUBMIT_MIN_SECONDS: '0',
  };
  const service = await startBenchService(pg.url, limits, PROFILE);
  try {
    const funnelId = collectingFunnel(pg.url, ORIGIN);
    admin(
      pg.url,
      'automation',
      'create',
      '--funnel',
      funnelId,
      '--on',
      'contact.created',
      '--webhook',
      'https://hooks.example.invalid/lead',
    );
    // The visitors' sessions, started by their trackers, 50 to a request.
    const at = new Date(Date.now() - 60_000).toISOString();
    for (let i = 0; i < visitors; i += 50) {
      const events = Array.from({ length: Math.min(50, visitors - i) }, (_, k) => ({
        type: 'session_start',
        sessionId: `v-${i + k}`,
        occurredAt: at,
        utm: { source: 'bench' },
      }));
      const res = await fetch(`${service.baseUrl}/v1/funnels/${funnelId}/collect`, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ events }),
      });
      if (res.status !== 202) throw new Error(`collect answered ${res.status}`);
    }
    // Answered once checked: wait until every session is written.
    const sessions = async () =>
      (await counts(pg.url, 'SELECT count(*) AS n FROM metric_sessions WHERE funnel_id = $1', [funnelId])).n;
    while ((await sessions()) < visitors) await new Promise((resolve) => setTimeout(resolve, 100));
    // Exactly RATE × DURATION submissions, each of its own visitor and email, all answered.
    const total = RATE * DURATION;
    const pgPids = await postgresPids(pg.url);
    const [before, pgBefore] = [cpuSeconds([service.pid]), cpuSeconds(pgPids)];
    let counter = 0;
    const result = await autocannon({
      url: service.baseUrl,
      connections: 20,
      amount: total,
      overallRate: RATE,
      requests: [
        {
          method: 'POST',
          path: `/v1/funnels/${funnelId}/submissions`,
          headers: HEADERS,
          setupRequest: (request) => {
            const i = counter++;
            const lead = {
              sessionId: `v-${i}`,
              fields: { email: `lead-${i}@example.com`, firstName: 'Lead' },
            };
            return { ...request, body: JSON.stringify(lead) };
          },
        },
      ],
    });
    const answered = result['2xx'];
    const perSubmission = (seconds: number) => ((seconds * 1000) / total).toFixed(2);
    const cpu = perSubmission(cpuSince(before, cpuSeconds([service.pid])));
    const pgCpu = perSubmission(cpuSince(pgBefore, cpuSeconds(await postgresPids(pg.url))));
    console.log(
      `${answered} of ${total} submissions answered 202 at ${RATE}/s: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms (target ≤ 100); non-2xx ${result.non2xx}, errors ${result.errors}; CPU a submission ${cpu} ms + PostgreSQL ${pgCpu} ms; load average ${loadavg()[0].toFixed(1)}`,
    );
    // Every lead by its email, and the contact.created run of each: the contact is written before
    // the answer, its run with it; a minute's grace for anything still being written.
    const emails = Array.from({ length: total }, (_, i) => `lead-${i}@example.com`);
    const present = () =>
      counts(
        pg.url,
        `SELECT count(DISTINCT c.id) AS contacts, count(DISTINCT r.contact_id) AS runs
           FROM contacts c LEFT JOIN automation_runs r ON r.contact_id = c.id AND r.event = 'contact.created'
          WHERE c.funnel_id = $1 AND c.email = ANY($2) AND c.meta->>'ps_source' = 'funnel'`,
        [funnelId, emails],
      );
    const deadline = Date.now() + 60_000;
    let found = await present();
    while ((found.contacts < total || found.runs < total) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      found = await present();
    }
    console.log(
      `contacts ${found.contacts} of ${total}, contact.created runs ${found.runs} of ${total}, missing ${total - found.contacts} contacts and ${total - found.runs} runs`,
    );
    if (answered !== total || found.contacts !== total || found.runs !== total) process.exitCode = 1;
  } finally {
    await service.stop();
    await pg.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
