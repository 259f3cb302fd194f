import { generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import { DataSource } from 'typeorm';
import { AutomationsService } from '@app/automations';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { ReceivedMail, SmtpReceiver } from './support/smtp-receiver';
import { eventually } from './support/webhook-receiver';

jest.setTimeout(90_000);

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const DKIM_TXT = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;

/** The unfolded value of a header as the message carries it. */
function headerOf(mail: ReceivedMail, name: string): string {
  const line = mail.parsed.headerLines.find((h) => h.key === name)?.line ?? '';
  return line
    .slice(line.indexOf(':') + 1)
    .replace(/\r?\n\s+/g, ' ')
    .trim();
}

/** Email automations sent over SMTP to a real server on loopback. */
describe('Email automations', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let tenant: TenantFixture;

  beforeAll(async () => {
    smtp = await SmtpReceiver.start();
    t = await startTestApp({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Acme <hello@acme.example>',
      DKIM_DOMAIN: 'acme.example',
      DKIM_SELECTOR: 'mail2026',
      // As an operator writes a PEM key into one environment line.
      DKIM_PRIVATE_KEY: String(privateKey.export({ type: 'pkcs8', format: 'pem' })).replace(/\n/g, '\\n'),
      BASE_URL: 'https://crm.example',
      AUTOMATION_POLL_INTERVAL_MS: '20',
      AUTOMATION_RETRY_BASE_MS: '20',
      AUTOMATION_RETRY_MAX_MS: '40',
      AUTOMATION_MAX_ATTEMPTS: '3',
    });
  });
  beforeEach(async () => {
    tenant = await createTenant(t.app);
    smtp.received.length = 0;
    smtp.offered = 0;
    smtp.respond = () => Promise.resolve(null);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const welcome = (template = 'Hello {{firstName}}, see https://acme.example/start?a=1&b=2 today.') =>
    t.app.get(AutomationsService).create({
      funnelId: tenant.funnelId,
      on: 'contact.created',
      message: 'email',
      subject: 'Welcome {{firstName}}',
      template,
      name: 'Welcome mail',
    });
  const createContact = async (body: object): Promise<string> => {
    const res = await fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts`, {
      method: 'POST',
      headers: { 'x-service-api-key': tenant.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
    return String(((await res.json()) as { data: { id: string } }).data.id);
  };
  const finishedRun = (contactId: string) =>
    eventually(async () =>
      (await t.app.get(AutomationsService).listRuns(tenant.funnelId)).find(
        (r) => r.contactId === contactId && ['succeeded', 'failed', 'skipped'].includes(r.status),
      ),
    );
  const messagesOf = async (contactId: string) => {
    const res = await fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts/${contactId}`, {
      headers: { 'x-service-api-key': tenant.key },
    });
    return ((await res.json()) as { data: { messages: Record<string, unknown>[] } }).data.messages;
  };

  it('sends the rendered subject, a text and an escaped HTML part, unsubscribe headers and a DKIM signature', async () => {
    await welcome();
    const id = await createContact({ email: 'ada@example.com', firstName: 'Ada <b>&' });
    const [mail] = await smtp.waitFor(1);
    const run = await finishedRun(id);

    expect(mail.recipients).toEqual(['ada@example.com']);
    expect(mail.parsed.subject).toBe('Welcome Ada <b>&');
    expect(mail.parsed.from?.value).toEqual([{ name: 'Acme', address: 'hello@acme.example' }]);
    expect(mail.parsed.messageId).toBe(`<${run.id}@acme.example>`);
    expect(mail.parsed.text).toContain('Hello Ada <b>&, see https://acme.example/start?a=1&b=2 today.');
    // HTML: the value escaped, the template's own address a (tracked) link.
    expect(mail.parsed.html).toMatch(
      /Hello Ada &lt;b&gt;&amp;, see <a href="https:\/\/crm\.example\/email\/click\/[\w-]+\.[\w-]+">https:\/\/acme\.example\/start\?a=1&amp;b=2<\/a> today\./,
    );
    const [url, mailto] = [...headerOf(mail, 'list-unsubscribe').matchAll(/<([^>]+)>/g)].map((m) => m[1]);
    const unsubscribe = { url, mailto };
    expect(unsubscribe.url).toMatch(/^https:\/\/crm\.example\/email\/unsubscribe\/[\w-]+\.[\w-]+$/);
    expect(unsubscribe.mailto).toMatch(/^mailto:hello@acme\.example\?subject=unsubscribe%20[\w-]+\.[\w-]+$/);
    expect(headerOf(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(mail.parsed.text).toContain(`Unsubscribe: ${unsubscribe.url}`);
    expect(mail.parsed.html).toContain(`<a href="${unsubscribe.url}">Unsubscribe</a>`);

    const dkim = await dkimVerify(mail.raw, {
      resolver: (name, type) =>
        name === 'mail2026._domainkey.acme.example' && type === 'TXT'
          ? Promise.resolve([[DKIM_TXT]])
          : Promise.reject(Object.assign(new Error('no such record'), { code: 'ENOTFOUND' })),
    });
    expect(dkim.results.map((r) => [r.signingDomain, r.status.result])).toEqual([['acme.example', 'pass']]);

    expect(run).toMatchObject({ status: 'succeeded', attempts: 1, lastError: null });
    expect(await messagesOf(id)).toEqual([
      {
        id: run.id,
        name: 'Welcome mail',
        type: 'email',
        subject: 'Welcome Ada <b>&',
        content: expect.any(String),
        // The server's acceptance is the delivery the service observes.
        status: 'delivered',
        sentAt: expect.any(String),
        deliveredAt: expect.any(String),
        clicks: 0,
      },
    ]);
  });

  it('retries a temporary refusal (4xx) once and then delivers', async () => {
    smtp.respond = (_raw, index) =>
      Promise.resolve(index === 0 ? { code: 451, text: 'Greylisted, try again later' } : null);
    await welcome();
    const id = await createContact({ email: 'grace@example.com', firstName: 'Grace' });
    const run = await finishedRun(id);
    expect(run).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      lastError: expect.stringContaining('451'),
    });
    expect(smtp.offered).toBe(2);
    expect(smtp.received).toHaveLength(1);
  });

  it("fails the run on a permanent refusal (5xx) with the server's answer, without retrying", async () => {
    smtp.respond = () => Promise.resolve({ code: 550, text: 'No such user here' });
    await welcome();
    const id = await createContact({ email: 'nobody@example.com' });
    const run = await finishedRun(id);
    expect(run).toMatchObject({ status: 'failed', attempts: 1 });
    expect(run.lastError).toMatch(/^SMTP 550: .*No such user here/);
    expect(smtp.offered).toBe(1);
    expect(await messagesOf(id)).toEqual([]);
  });

  it('ends the run skipped, sending nothing, when the contact has no email address', async () => {
    await welcome();
    const id = await createContact({ firstName: 'Nomail', phone: '+15550100' });
    const run = await finishedRun(id);
    expect(run).toMatchObject({ status: 'skipped', lastError: 'skipped: the contact has no email address' });
    expect(smtp.offered).toBe(0);
  });

  it('sends again with the same Message-ID when the outcome is lost after the server accepted (at least once)', async () => {
    const dataSource = t.app.get(DataSource);
    // While the server accepts the first copy, the worker's lease is taken from it, as when a
    // worker dies between the server's 250 and recording the outcome.
    smtp.respond = async (_raw, index) => {
      if (index === 0)
        await dataSource.query(
          "UPDATE automation_runs SET locked_by = 'a-worker-that-died', next_attempt_at = now() WHERE funnel_id = $1",
          [tenant.funnelId],
        );
      return null;
    };
    await welcome();
    const id = await createContact({ email: 'twice@example.com', firstName: 'Twice' });
    const run = await finishedRun(id);
    expect(run).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(smtp.received).toHaveLength(2);
    expect(smtp.received.map((m) => m.parsed.messageId)).toEqual([
      `<${run.id}@acme.example>`,
      `<${run.id}@acme.example>`,
    ]);
    expect(await messagesOf(id)).toHaveLength(1);
  });
});
