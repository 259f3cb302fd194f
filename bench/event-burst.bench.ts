/**
 * `npm run bench:burst -- [clients] [rounds]` (defaults 200 and 5)
 *
 * Memory under the largest bodies the API takes: the production build (built first; run by
 * `start:prod`, its heap bound included) on a throwaway PostgreSQL, and
 * `clients` event batches of about 1 MB (a thousand events each) sent at once, `rounds` times.
 * Prints the answers by status, the server's peak RSS and whether it is still up: every batch is
 * either accepted (202) or refused with 503 and Retry-After, and the process never stops.
 */
import { startBenchDatabase } from './metrics/bench-env';
import { buildHttpBenchData } from './http/dataset';
import { buildService, freePort, productionEnv, rssMb, startService } from './http/processes';

const CLIENTS = Number(process.argv[2] ?? 200);
const ROUNDS = Number(process.argv[3] ?? 5);

/** A thousand events, session starts with every UTM member and answers, about 0.95 MB of JSON. */
function batch(): string {
  const now = Date.now();
  const events = Array.from({ length: 1000 }, (_, i) => {
    const common = {
      sessionId: `s-${i}-${'x'.repeat(40)}`,
      occurredAt: new Date(now - i * 1000).toISOString(),
    };
    return i % 2
      ? {
          type: 'session_start',
          ...common,
          visitorId: 'v'.repeat(80),
          device: 'mobile',
          utm: Object.fromEntries(
            ['source', 'medium', 'campaign', 'term', 'content'].map((m) => [m, m[0].repeat(150)]),
          ),
        }
      : {
          type: 'answer',
          ...common,
          questionId: 'question_1',
          questionTitle: 'Q'.repeat(200),
          answers: Array.from({ length: 5 }, (_, j) => `answer ${j} ${'a'.repeat(80)}`),
        };
  });
  return JSON.stringify({ events });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function main(): Promise<void> {
  buildService(process.cwd());
  const pg = await startBenchDatabase();
  const data = await buildHttpBenchData(pg.url, 1000);
  const service = await startService(process.cwd(), productionEnv(pg.url), await freePort());
  const body = batch();
  const url = `${service.baseUrl}/v1/funnels/${data.otherFunnelId}/events`;
  const headers = { 'x-service-api-key': data.key, 'content-type': 'application/json' };
  console.log(
    `${CLIENTS} clients at once, ${ROUNDS} rounds, batches of ${(body.length / 1e6).toFixed(2)} MB`,
  );
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(service.pid) || 0)), 50);
  const statuses: Record<string, number> = {};
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          const status = await fetch(url, { method: 'POST', headers, body }).then(
            (res) => String(res.status),
            (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
          );
          statuses[status] = (statuses[status] ?? 0) + 1;
        }),
      );
      console.log(
        `round ${round}: ${JSON.stringify(statuses)}, peak RSS ${peak.toFixed(0)} MB, ` +
          (alive(service.pid) ? 'up' : 'STOPPED'),
      );
    }
  } finally {
    clearInterval(sampler);
    await service.stop();
    await pg.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
