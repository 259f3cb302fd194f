import { Build, createTenant } from '../../scripts/previous-release';
import { BENCH_PAGES, fmt } from './bench-env';
import { trafficBatches } from './dataset';

// The events API takes at most 1000 events a call; four calls in flight.
const PER_CALL = 1000;
const IN_FLIGHT = 4;

/** A build's variables for a bench on `url`: test mode, limits out of reach, the fold every 200 ms to now. */
export function releaseEnv(url: URL | string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    DATABASE_URL: url.toString(),
    RATE_LIMIT_PER_MINUTE: '100000000',
    METRICS_PORT: '0',
    SEGMENT_FOLD_POLL_MS: '200',
    SEGMENT_FOLD_LAG_SECONDS: '0',
  };
}

/** A tenant with one funnel of the bench's pages, through the build's admin CLI. */
export async function createBenchTenant(build: Build, env: NodeJS.ProcessEnv, name: string) {
  const pages = BENCH_PAGES.map((p) => `${p.slug}:${p.title}`).join(',');
  const tenant = await createTenant(build, env, name, [{ name: 'x1', pages }]);
  return { companyId: tenant.companyId, key: tenant.key, funnelId: tenant.funnels[0] };
}

/** bench:metrics' traffic (seed 1), sent to a service's events API; returns the events and sessions sent. */
export async function sendTraffic(
  baseUrl: string,
  key: string,
  funnelId: string,
  plan: { events: number; from: number; to: number },
): Promise<{ events: number; sessions: number }> {
  const batches = trafficBatches({ funnelId, ...plan, seed: 1, prefix: 'x1' });
  const sent = { events: 0, sessions: 0 };
  let reported = 0;
  const worker = async () => {
    for (let next = batches.next(); !next.done; next = batches.next()) {
      await postEvents(baseUrl, key, funnelId, next.value.events);
      sent.events += next.value.events.length;
      sent.sessions += next.value.sessions;
      if (sent.events - reported >= 500_000) console.log(`  ${fmt((reported = sent.events), 0)} events sent`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return sent;
}

/** Sends events in calls of 1000; any answer but 202 fails. */
export async function postEvents(baseUrl: string, key: string, funnelId: string, events: unknown[]) {
  for (let i = 0; i < events.length; i += PER_CALL) {
    const res = await fetch(`${baseUrl}/v1/funnels/${funnelId}/events`, {
      method: 'POST',
      headers: { 'x-service-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ events: events.slice(i, i + PER_CALL) }),
    });
    if (res.status !== 202) throw new Error(`events answered ${res.status}: ${await res.text()}`);
  }
}
