/**
 * `npm run bench:email-burst -- [contacts] [in-flight]` (defaults 10000 and 20)
 *
 * A burst of contact creations (`POST /v1/funnels/{id}/contacts`, real HTTP, `in-flight` at a
 * time) into a funnel with a welcome-email automation, while the worker sends to a local SMTP
 * server (`smtp-server` on loopback). Waits until no run is left to do, then checks the stated
 * guarantee at the server: every run succeeded, every run's Message-ID arrived at least once
 * (at least once; repeats are counted and printed), every contact shows its one message, no run
 * lost. Prints the counts and the drain time; exits 1 on any mismatch.
 */
import { loadavg } from 'node:os';
import { SMTPServer } from 'smtp-server';
import { DataSource } from 'typeorm';
import { AutomationRunQueue, AutomationsService } from '@app/automations';
import { validateEnv } from '@app/core';
import { createApp } from '../apps/api/src/create-app';
import { createBenchFunnel, startBenchDatabase } from './metrics/bench-env';

const CONTACTS = Number(process.argv[2] ?? 10_000);
const IN_FLIGHT = Number(process.argv[3] ?? 20);

/** The SMTP server: each accepted message's Message-ID, as many times as it arrived. */
async function startSink(): Promise<{ port: number; arrivals: Map<string, number>; close: () => void }> {
  const arrivals = new Map<string, number>();
  const sink = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, callback) {
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 8192) head += chunk.toString('latin1');
      });
      stream.on('end', () => {
        const id = /^Message-ID:\s*(<[^>]+>)/im.exec(head)?.[1] ?? 'none';
        arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve) =>
    sink.listen(0, '127.0.0.1', () => resolve((sink.server.address() as { port: number }).port)),
  );
  return { port, arrivals, close: () => sink.close(() => undefined) };
}

async function main(): Promise<void> {
  const sink = await startSink();
  const pg = await startBenchDatabase();
  // The app's configuration reads process.env while it is built.
  Object.assign(process.env, {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    METRICS_PORT: '0',
    RATE_LIMIT_PER_MINUTE: '1000000',
    SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    MAIL_FROM: 'Bench <bench@example.com>',
    AUTOMATION_POLL_INTERVAL_MS: '50',
    AUTOMATION_CONCURRENCY: '50',
    SMTP_MAX_CONNECTIONS: '10',
  });
  const app = await createApp(validateEnv(process.env), { databaseUrl: pg.url });
  let failed = false;
  try {
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const { funnelId, key } = await createBenchFunnel(app, 'Burst');
    await app.get(AutomationsService).create({
      funnelId,
      on: 'contact.created',
      message: 'email',
      subject: 'Welcome {{firstName}}',
      template: 'Hello {{firstName}}, thanks for signing up! https://example.com/start',
    });
    const url = `http://127.0.0.1:${port}/v1/funnels/${funnelId}/contacts`;
    const headers = { 'x-service-api-key': key, 'content-type': 'application/json' };
    const statuses = new Map<string, number>();
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < CONTACTS; i = next++) {
          const body = JSON.stringify({ email: `person${i}@example.com`, firstName: `Person ${i}` });
          const status = await fetch(url, { method: 'POST', headers, body }).then(
            async (res) => (await res.arrayBuffer(), String(res.status)),
            (error: Error) => error.message,
          );
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    const createdMs = Date.now() - started;
    const queue = app.get(AutomationRunQueue);
    for (;;) {
      const { due, running } = await queue.backlog();
      if (due === 0 && running === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const drainedMs = Date.now() - started;
    const ds = app.get(DataSource);
    const [counts] = (await ds.query(
      `SELECT (SELECT count(*) FROM contacts WHERE funnel_id = $1)::int AS contacts,
              (SELECT count(*) FROM automation_runs WHERE funnel_id = $1)::int AS runs,
              (SELECT count(*) FROM automation_runs WHERE funnel_id = $1 AND status = 'succeeded')::int AS succeeded,
              (SELECT count(*) FROM contact_messages WHERE funnel_id = $1)::int AS messages,
              (SELECT count(*) FROM contacts c WHERE funnel_id = $1 AND
                 (SELECT count(*) FROM contact_messages m WHERE m.funnel_id = c.funnel_id AND m.contact_id = c.id) <> 1)::int AS without_one`,
      [funnelId],
    )) as { contacts: number; runs: number; succeeded: number; messages: number; without_one: number }[];
    const runIds = (
      (await ds.query(`SELECT id FROM automation_runs WHERE funnel_id = $1`, [funnelId])) as { id: string }[]
    ).map((r) => `<${r.id}@example.com>`);
    const missing = runIds.filter((id) => !sink.arrivals.has(id)).length;
    const strangers = [...sink.arrivals.keys()].filter((id) => !runIds.includes(id)).length;
    const received = [...sink.arrivals.values()].reduce((a, b) => a + b, 0);
    const repeats = received - sink.arrivals.size;

    console.log(
      `${CONTACTS} contact creations, ${IN_FLIGHT} in flight: ${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}`,
    );
    console.log(
      `contacts ${counts.contacts}, runs ${counts.runs}, succeeded ${counts.succeeded}, contact messages ${counts.messages}, ` +
        `contacts without exactly one message ${counts.without_one}`,
    );
    console.log(
      `at the SMTP server: ${received} messages, ${sink.arrivals.size} distinct Message-IDs, ${repeats} repeats (allowed: at least once), ` +
        `${missing} runs never arrived, ${strangers} unknown`,
    );
    console.log(
      `created in ${(createdMs / 1000).toFixed(1)} s; drained (every run done) ${(drainedMs / 1000).toFixed(1)} s after the first creation ` +
        `(${Math.round(CONTACTS / (drainedMs / 1000))} emails/s); load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(', ')}`,
    );
    failed =
      statuses.get('201') !== CONTACTS ||
      counts.contacts !== CONTACTS ||
      counts.runs !== CONTACTS ||
      counts.succeeded !== CONTACTS ||
      counts.messages !== CONTACTS ||
      counts.without_one !== 0 ||
      missing !== 0 ||
      strangers !== 0;
    console.log(failed ? 'MISMATCH' : 'every run sent at least once and recorded once: OK');
  } finally {
    await app.close();
    sink.close();
    await pg.destroy();
  }
  if (failed) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
