/**
 * `npm run bench:answers -- [events] [days] [runs]` (defaults 2 000 000, 3 and 5)
 *
 * The previous release (scripts/previous-release.ts) and this checkout, alternated on one held
 * dataset. The previous release builds it through its HTTP API: bench:metrics' traffic (`events`
 * events over `days` days, ending with the past week's busiest hour), contacts and their
 * messages, folded. The database is then copied (as a template), this checkout's migrations
 * upgrade the copy, and both services run side by side, each on its own. Every question
 * bench:metrics asks (every chart, KPI and insight, filtered, broken down, compared, and the step
 * funnels, on its four windows) goes to one then the other, `runs` times, the first asked
 * alternating: the answers must be the same bytes. Each build's p50 per question is printed beside
 * the other's, and a VERDICT closes the run.
 */
import { Client } from 'pg';
import { busiestHourEnd } from '../apps/admin/src/demo/demo-traffic';
import { fmt, onDatabase, percentile, sql, startBenchPostgres } from './metrics/bench-env';
import { seedContacts } from './metrics/dataset';
import { createBenchTenant, postEvents, releaseEnv, sendTraffic } from './metrics/release-traffic';
import { benchWindows, figureProbes, questionProbes } from './metrics/question-probes';
import { checkoutPreviousRelease, folded, ROOT, thisCheckout } from '../scripts/previous-release';

const EVENTS = Number(process.argv[2] ?? 2_000_000);
const DAYS = Number(process.argv[3] ?? 3);
const RUNS = Number(process.argv[4] ?? 5);
const CONTACTS = 20_000;
const DAY = 86_400_000;

type Service = { baseUrl: string; stop(): Promise<void> };

async function main(): Promise<void> {
  const release = await checkoutPreviousRelease();
  const pg = await startBenchPostgres();
  const held = pg.url;
  const copy = onDatabase(pg.url, 'answers_upgraded');
  const services: Service[] = [];
  // An interrupted run still stops both services, the database and the worktree.
  const interrupted = new Promise<never>((_, reject) =>
    process.once('SIGINT', () => reject(new Error('interrupted'))),
  );
  const run = async () => {
    console.log(`previous release ${release.commit.slice(0, 7)}, this checkout in ${ROOT}`);
    await release.script(releaseEnv(held), 'migrate.js');
    const tenant = await createBenchTenant(release, releaseEnv(held), 'Answers');
    const { funnelId } = tenant;
    const now = busiestHourEnd(Date.now());
    const window = { from: now - DAYS * DAY, to: now };
    let old = await release.start(releaseEnv(held));
    services.push(old);
    const started = performance.now();
    const sent = await sendTraffic(old.baseUrl, tenant.key, funnelId, { events: EVENTS, ...window });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `previous release ingested ${fmt(sent.events, 0)} events (${fmt(sent.sessions, 0)} sessions) over HTTP ` +
        `in ${fmt(seconds, 0)} s: ${fmt(sent.events / seconds, 0)} events/s`,
    );
    const db = new Client({ connectionString: pg.url });
    await db.connect();
    const query = async (text: string, params: unknown[]) => (await db.query(text, params)).rows;
    const messages = await seedContacts(query, { funnelId, companyId: tenant.companyId }, window, CONTACTS);
    await db.end();
    await postEvents(old.baseUrl, tenant.key, funnelId, messages);
    await folded(pg.url, { timeoutMs: 3_600_000 });
    console.log(`folded by the previous release after ${fmt((performance.now() - started) / 1000, 0)} s`);
    await old.stop();
    await sql(pg.url, ['VACUUM ANALYZE']);
    const heldName = new URL(held).pathname.slice(1);
    await sql(onDatabase(pg.url, 'postgres'), [`CREATE DATABASE answers_upgraded TEMPLATE "${heldName}"`]);
    const migrating = performance.now();
    await thisCheckout.script(releaseEnv(copy), 'migrate.js');
    const upgraded = await thisCheckout.start(releaseEnv(copy));
    services.push(upgraded);
    await folded(copy, { recent: false, timeoutMs: 3_600_000 });
    console.log(
      `upgraded copy migrated and folded by this checkout in ${fmt((performance.now() - migrating) / 1000, 0)} s`,
    );
    old = await release.start({ ...releaseEnv(held), SEGMENT_FOLD_POLL_MS: '3600000' });
    services.push(old);
    await compare(old, upgraded, tenant.key, funnelId, now);
  };
  try {
    await Promise.race([run(), interrupted]);
  } finally {
    for (const s of services) await s.stop();
    await pg.destroy();
    await release.remove();
  }
}

/**
 * Asks every question of both builds `RUNS` times, one then the other (the first alternating),
 * and prints each build's p50 and whether the answers were the same bytes every time.
 */
async function compare(old: Service, upgraded: Service, key: string, funnelId: string, now: number) {
  const questions = Object.entries(benchWindows(now, DAYS)).flatMap(([win, query]) =>
    [...figureProbes(funnelId, query), ...questionProbes(funnelId, query)].map((p) => ({ ...p, win })),
  );
  const ask = async (service: Service, path: string) => {
    const t0 = performance.now();
    const res = await fetch(service.baseUrl + path, { headers: { 'x-service-api-key': key } });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${body.toString()}`);
    return { body, ms: performance.now() - t0 };
  };
  const differing: string[] = [];
  const ratios: number[] = [];
  console.log(
    `\n${'question'.padEnd(44)} ${'window'.padEnd(10)} ${'before p50'.padStart(10)} ${'now p50'.padStart(8)}  answers`,
  );
  for (const q of questions) {
    const times = [[] as number[], [] as number[]];
    let same = true;
    for (let run = 0; run < RUNS + 1; run++) {
      const order = run % 2 ? [1, 0] : [0, 1];
      const answers: Buffer[] = [];
      for (const i of order) {
        const { body, ms } = await ask(i ? upgraded : old, q.path);
        answers[i] = body;
        // The first run warms both up.
        if (run) times[i].push(ms);
      }
      same &&= answers[0].equals(answers[1]);
      if (!answers[0].equals(answers[1]) && differing.length < 5)
        console.log(
          `  differs: ${q.path}\n    before ${answers[0].toString().slice(0, 300)}\n    now    ${answers[1].toString().slice(0, 300)}`,
        );
    }
    if (!same) differing.push(`${q.name} (${q.win})`);
    const [before, after] = times.map((t) =>
      percentile(
        [...t].sort((a, b) => a - b),
        50,
      ),
    );
    ratios.push(after / before);
    console.log(
      `${q.name.padEnd(44)} ${q.win.padEnd(10)} ${fmt(before, 2).padStart(10)} ${fmt(after, 2).padStart(8)}  ${same ? 'same bytes' : 'DIFFER'}`,
    );
  }
  const geomean = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
  console.log(
    `\np50 now / before: geometric mean ${fmt(geomean, 2)} over ${questions.length} questions` +
      `\nVERDICT: ${differing.length ? `FAIL, ${differing.length} of ${questions.length} questions answered differently: ${differing.join(', ')}` : `PASS, the same bytes for all ${questions.length} questions, ${RUNS + 1} times each`}`,
  );
  if (differing.length) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
