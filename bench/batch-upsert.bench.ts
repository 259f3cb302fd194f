/**
 * `npm run bench:batch -- [contacts] [single creates] [--client-thread]` (defaults 100 000 and 2 000)
 *
 * POST /v1/funnels/{funnelId}/contacts/batch over real HTTP in a throwaway PostgreSQL: `contacts`
 * contacts, 100 a call, 4 calls in flight, upsertBy email, half of them updates of contacts that
 * already exist (every other item). Beside it, in the same run, the reference: the same kind of
 * contacts through POST …/contacts one at a time, 4 in flight (a sample of `single creates`,
 * extrapolated to `contacts`). Prints contacts/s, per-call p50/p95 and the machine's speed now.
 * The client is node:http with keep-alive sockets, the cheapest real HTTP client at hand: it
 * shares the process (and the 2 cores) with the service, so its own cost counts against the figure.
 * Also prints the CPU time of a call: this Node process (service and client) and every process of
 * PostgreSQL, which on a loaded machine varies less than the throughput does. With
 * `--client-thread` the client runs in a worker thread of the process, as a client of its own
 * would, and its thread's CPU is printed apart from the service's (still on the same 2 cores).
 */
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { validateEnv } from '@app/core';
import { createApp } from '../apps/api/src/create-app';
import {
  BenchFunnel,
  calibrate,
  createBenchFunnel,
  fmt,
  percentile,
  sql,
  startBenchDatabase,
} from './metrics/bench-env';
import { nodeCpuMs, postgresCpuMs, postmasterPid } from './metrics/cpu';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const CONTACTS = Number(args[0] ?? 100_000);
const SINGLES = Number(args[1] ?? 2_000);
const CLIENT_THREAD = process.argv.includes('--client-thread');
const PER_CALL = 100;
const IN_FLIGHT = 4;

const email = (i: number) => `c${i}@bench.example.com`;

/**
 * Runs `calls` through `IN_FLIGHT` workers; answers each call's duration (ms), the wall time and
 * the CPU time of a call (ms) in this process and in PostgreSQL (`postmaster`'s processes).
 */
async function inFlight(postmaster: number, calls: number, call: (i: number) => Promise<void>) {
  const times: number[] = [];
  let next = 0;
  const [node, postgres, thread] = [nodeCpuMs(), postgresCpuMs(postmaster), threadCpuMs()];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < calls) {
        const i = next++;
        const t0 = performance.now();
        await call(i);
        times.push(performance.now() - t0);
      }
    }),
  );
  return {
    wallMs: performance.now() - started,
    times: times.sort((a, b) => a - b),
    nodeMs: (nodeCpuMs() - node) / calls,
    postgresMs: (postgresCpuMs(postmaster) - postgres) / calls,
    threadMs: (threadCpuMs() - thread) / calls,
  };
}

type Run = Awaited<ReturnType<typeof inFlight>>;

const threadCpuMs = () => {
  const usage = process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
};

interface ClientPlan {
  base: string;
  postmaster: number;
  batchFunnel: BenchFunnel;
  singleFunnel: BenchFunnel;
}

interface ClientResult {
  batch: Run;
  single: Run;
  statuses: [number, number][];
}

async function main(): Promise<void> {
  const pg = await startBenchDatabase();
  const env = validateEnv({ NODE_ENV: 'test', LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '1000000' });
  const app = await createApp(env, { databaseUrl: pg.url });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  const base = `http://127.0.0.1:${port}/v1`;
  try {
    const batchFunnel = await createBenchFunnel(app, 'Batch');
    const singleFunnel = await createBenchFunnel(app, 'Single');
    // The contacts the updates find: every other item's email exists before the run.
    await sql(pg.url, [
      `INSERT INTO contacts (funnel_id, company_id, status, email, first_name, converted_at, meta)
       SELECT '${batchFunnel.funnelId}', '${batchFunnel.companyId}', 'lead', 'c' || i || '@bench.example.com',
              'Before', now(), '{"ps_source":"funnel"}'
       FROM generate_series(0, ${CONTACTS - 1}, 2) AS i`,
      'VACUUM ANALYZE contacts',
    ]);
    const calibration = await calibrate(pg.url);
    const postmaster = await postmasterPid(pg.url);

    const plan: ClientPlan = { base, postmaster, batchFunnel, singleFunnel };
    const { batch, single, statuses } = CLIENT_THREAD ? await clientThread(plan) : await runClient(plan);

    const batchRate = CONTACTS / (batch.wallMs / 1000);
    const singleRate = SINGLES / (single.wallMs / 1000);
    console.log(
      `\nmachine now: PostgreSQL sums 20M integers in ${fmt(calibration, 0)} ms; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `\n${CONTACTS} contacts, ${IN_FLIGHT} calls in flight, real HTTP, one process (client and service share it` +
        `${CLIENT_THREAD ? '; the client in a worker thread' : ''})`,
    );
    console.log(
      'path                                   contacts/s   call p50 ms   call p95 ms   wall s   CPU/call: Node ms' +
        `${CLIENT_THREAD ? ' (client)' : ''}   PostgreSQL ms`,
    );
    const row = (name: string, rate: number, run: Run) =>
      console.log(
        `${name.padEnd(38)} ${fmt(rate, 0).padStart(10)} ${fmt(percentile(run.times, 50)).padStart(13)} ${fmt(percentile(run.times, 95)).padStart(13)} ${fmt(run.wallMs / 1000).padStart(8)} ${fmt(run.nodeMs).padStart(19)}${CLIENT_THREAD ? ` (${fmt(run.threadMs)})` : ''} ${fmt(run.postgresMs).padStart(15)}`,
      );
    row(`batch upsert, ${PER_CALL} a call (half updates)`, batchRate, batch);
    row(`single creates (${SINGLES} sampled)`, singleRate, single);
    console.log(
      `\nbatch results: ${statuses.map(([s, n]) => `${n} × ${s}`).join(', ')}; ` +
        `single creates for ${CONTACTS} contacts would take ${fmt(CONTACTS / singleRate, 0)} s ` +
        `(${fmt(batchRate / singleRate)}× slower than the batch)`,
    );
  } finally {
    await app.close();
    await pg.destroy();
  }
}

/** The two runs of the client: the batch upserts, then the single creates (the reference). */
async function runClient(plan: ClientPlan): Promise<ClientResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const post = (key: string, path: string, body: unknown, expected: number[]) => {
    const payload = JSON.stringify(body);
    return new Promise<{ data: { status: number }[] }>((resolve, reject) => {
      const req = request(
        `${plan.base}${path}`,
        {
          method: 'POST',
          agent,
          headers: {
            'x-service-api-key': key,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (!expected.includes(res.statusCode!)) {
              return reject(new Error(`${path}: ${res.statusCode} ${text.slice(0, 300)}`));
            }
            resolve(JSON.parse(text) as { data: { status: number }[] });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  };

  const statuses = new Map<number, number>();
  const batch = await inFlight(plan.postmaster, Math.ceil(CONTACTS / PER_CALL), async (call) => {
    const contacts = Array.from({ length: PER_CALL }, (_, j) => {
      const i = call * PER_CALL + j;
      return { email: email(i), firstName: `First${i}`, lastName: 'Batch', properties: { plan: 'pro' } };
    });
    const body = await post(
      plan.batchFunnel.key,
      `/funnels/${plan.batchFunnel.funnelId}/contacts/batch`,
      {
        contacts,
        upsertBy: 'email',
      },
      [200],
    );
    for (const item of body.data) statuses.set(item.status, (statuses.get(item.status) ?? 0) + 1);
  });

  const single = await inFlight(plan.postmaster, SINGLES, async (i) => {
    await post(
      plan.singleFunnel.key,
      `/funnels/${plan.singleFunnel.funnelId}/contacts`,
      {
        email: email(i),
        firstName: `First${i}`,
        lastName: 'Single',
      },
      [201],
    );
  });

  agent.destroy();
  return { batch, single, statuses: [...statuses] };
}

/** runClient in a worker thread: the service's event loop no longer runs the client's work. */
function clientThread(plan: ClientPlan): Promise<ClientResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(__filename, { workerData: plan, argv: process.argv.slice(2) });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

if (isMainThread) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  void runClient(workerData as ClientPlan).then((result) => parentPort!.postMessage(result));
}
