/**
 * `npm run bench:email -- [messages]`
 *
 * Email throughput to a local SMTP server (the `smtp-server` package on loopback, accepting every
 * message): `messages` (default 2000) welcome-email runs delivered by the automation worker
 * (pooled nodemailer transport, AUTOMATION_CONCURRENCY 50, SMTP_MAX_CONNECTIONS 10), beside
 * nodemailer sending the same number of messages in a plain loop to the same server, in the same
 * run. Counts at the server; prints the machine's load; exits 1 when a run was not sent.
 */
import { loadavg } from 'node:os';
import { createTransport } from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { DataSource } from 'typeorm';
import { CompaniesService } from '@app/auth';
import { AutomationRunQueue, AutomationsService, AutomationWorker } from '@app/automations';
import { Contact, type ContactChange } from '@app/contacts';
import { runMigrations, startThrowawayPostgres, validateEnv } from '@app/core';
import { FunnelsService, WorkspacesService } from '@app/workspaces';
import { createApp } from '../apps/api/src/create-app';
import { databaseSchema } from '../db/schema';

const MESSAGES = Number(process.argv[2] ?? 2000);

async function main(): Promise<void> {
  let received = 0;
  const sink = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        received++;
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve) =>
    sink.listen(0, '127.0.0.1', () => resolve((sink.server.address() as { port: number }).port)),
  );
  const pg = await startThrowawayPostgres();
  try {
    await runMigrations(pg.url, databaseSchema);
    // The plain loop: one message after the other on one connection.
    const plain = createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true });
    let started = Date.now();
    for (let i = 0; i < MESSAGES; i++) {
      await plain.sendMail({
        from: 'Bench <bench@example.com>',
        to: `person${i}@example.com`,
        subject: `Welcome Person ${i}`,
        text: `Hello Person ${i}, thanks for signing up!`,
        html: `<p>Hello Person ${i}, thanks for signing up!</p>`,
      });
    }
    const loopRate = MESSAGES / ((Date.now() - started) / 1000);
    plain.close();
    console.log(`nodemailer plain loop: ${MESSAGES} messages, ${Math.round(loopRate)} messages/s`);

    received = 0;
    // The app's configuration reads process.env while it is built.
    Object.assign(process.env, {
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      METRICS_PORT: '0',
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_FROM: 'Bench <bench@example.com>',
      AUTOMATION_WORKER_ENABLED: 'false',
      AUTOMATION_POLL_INTERVAL_MS: '20',
      // A run holds its slot until its message is recorded (a group commit): more slots than
      // connections keep the connections busy.
      AUTOMATION_CONCURRENCY: '50',
      SMTP_MAX_CONNECTIONS: '10',
    });
    const env = validateEnv(process.env);
    const app = await createApp(env, { databaseUrl: pg.url });
    try {
      const funnelId = await seed(app.get(DataSource), app);
      const worker = app.get(AutomationWorker);
      started = Date.now();
      worker.start();
      // Runs that end otherwise than sent would leave the server short: stop when none is left to do.
      while (received < MESSAGES) {
        const { due, running } = await app.get(AutomationRunQueue).backlog();
        if (due === 0 && running === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const rate = MESSAGES / ((Date.now() - started) / 1000);
      await worker.stop();
      const [{ succeeded }] = (await app
        .get(DataSource)
        .query(
          `SELECT count(*)::int AS succeeded FROM automation_runs WHERE funnel_id = $1 AND status = 'succeeded'`,
          [funnelId],
        )) as { succeeded: number }[];
      console.log(
        `automation worker: ${MESSAGES} runs, ${received} messages at the server, ${succeeded} runs succeeded, ` +
          `${Math.round(rate)} messages/s = ${Math.round((rate / loopRate) * 100)} % of the plain loop`,
      );
      console.log(
        `load average (1, 5, 15 min): ${loadavg()
          .map((l) => l.toFixed(1))
          .join(', ')}`,
      );
      if (received !== MESSAGES || succeeded !== MESSAGES) process.exitCode = 1;
    } finally {
      await app.close();
    }
  } finally {
    sink.close(() => undefined);
    await pg.destroy();
  }
}

/** A funnel with a welcome-email automation and MESSAGES contacts whose runs are due. */
async function seed(ds: DataSource, app: Awaited<ReturnType<typeof createApp>>): Promise<string> {
  const company = await app.get(CompaniesService).create('Bench');
  const workspace = await app.get(WorkspacesService).create(company.id, 'W');
  const funnel = await app.get(FunnelsService).create({ workspaceId: workspace.id, name: 'F' });
  const automations = app.get(AutomationsService);
  await automations.create({
    funnelId: funnel.id,
    on: 'contact.created',
    message: 'email',
    subject: 'Welcome {{firstName}}',
    template: 'Hello {{firstName}}, thanks for signing up! https://example.com/start',
  });
  for (let from = 0; from < MESSAGES; from += 500) {
    await ds.transaction(async (manager) => {
      const contacts = await manager.save(
        Array.from({ length: Math.min(500, MESSAGES - from) }, (_, i) =>
          manager.create(Contact, {
            funnelId: funnel.id,
            companyId: company.id,
            status: 'lead',
            email: `person${from + i}@example.com`,
            firstName: `Person ${from + i}`,
          }),
        ),
      );
      const changes: ContactChange[] = contacts.map((contact) => ({
        kind: 'contact.created',
        companyId: company.id,
        funnelId: funnel.id,
        contactId: contact.id,
        occurredAt: new Date(),
      }));
      await automations.record(manager, changes);
    });
  }
  return funnel.id;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
