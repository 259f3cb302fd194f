import { AutomationsService } from '@app/automations';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { ReceivedMail, SmtpReceiver } from './support/smtp-receiver';
import { eventually } from './support/webhook-receiver';

jest.setTimeout(90_000);

/** The https address of an email's List-Unsubscribe header. */
function unsubscribeUrlOf(mail: ReceivedMail): string {
  const line = mail.parsed.headerLines.find((h) => h.key === 'list-unsubscribe')!.line;
  return /<(https?:[^>]+)>/.exec(line)![1];
}

/** One-click unsubscribe (RFC 8058), the page's button and subscribing again through the API. */
describe('Email unsubscribe', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let tenant: TenantFixture;

  beforeAll(async () => {
    smtp = await SmtpReceiver.start();
    t = await startTestApp({ SMTP_URL: smtp.url, AUTOMATION_POLL_INTERVAL_MS: '20' });
  });
  beforeEach(async () => {
    tenant = await createTenant(t.app);
    smtp.received.length = 0;
    for (const on of ['contact.created', 'field:firstName'])
      await t.app.get(AutomationsService).create({
        funnelId: tenant.funnelId,
        on,
        message: 'email',
        subject: 'Hello {{firstName}}',
        template: 'Hi {{firstName}}',
      });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const api = async (method: string, path: string, body?: object, key = tenant.key) => {
    const res = await fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts${path}`, {
      method,
      headers: { 'x-service-api-key': key, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };
  /** The link as this test app serves it (the email's link names BASE_URL, here unset). */
  const local = (url: string) => `${t.baseUrl}${new URL(url).pathname}`;
  const oneClick = (url: string) =>
    fetch(local(url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
  const metaOf = async (id: string) => (await api('GET', `/${id}`)).body.data.meta as Record<string, unknown>;
  const rename = (id: string, firstName: string) =>
    api('PUT', `/${id}/values`, { fieldName: 'firstName', value: firstName });
  const runsOf = async (id: string) =>
    (await t.app.get(AutomationsService).listRuns(tenant.funnelId)).filter((r) => r.contactId === id);
  const finished = (id: string, count: number) =>
    eventually(async () => {
      const runs = await runsOf(id);
      return (
        runs.filter((r) => ['succeeded', 'failed', 'skipped'].includes(r.status)).length >= count && runs
      );
    });

  it('a one-click POST unsubscribes the contact, visibly, and its next email is skipped with the reason', async () => {
    const { body } = await api('POST', '', { email: 'ada@example.com', firstName: 'Ada' });
    const id = String(body.data.id);
    const [mail] = await smtp.waitFor(1);
    const url = unsubscribeUrlOf(mail);

    const res = await oneClick(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('You are unsubscribed');
    const meta = await metaOf(id);
    expect(meta).toMatchObject({ ps_unsubscribed: true, ps_unsubscribed_at: expect.stringMatching(/Z$/) });
    // Searchable like the other meta flags.
    const search = await fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts/search`, {
      method: 'POST',
      headers: { 'x-service-api-key': tenant.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        filterGroups: [{ filters: [{ field: 'meta.ps_unsubscribed', operator: 'eq', value: true }] }],
      }),
    });
    expect(((await search.json()) as { data: { id: string }[] }).data.map((c) => c.id)).toEqual([id]);

    // Repeating it keeps the first time.
    expect((await oneClick(url)).status).toBe(200);
    expect((await metaOf(id)).ps_unsubscribed_at).toBe(meta.ps_unsubscribed_at);

    await rename(id, 'Ada L.');
    const runs = await finished(id, 2);
    expect(runs.find((r) => r.trigger === 'field:firstName')).toMatchObject({
      status: 'skipped',
      lastError: 'skipped: the contact unsubscribed from email',
    });
    expect(smtp.received).toHaveLength(1);
  });

  it("the page asks first (a GET changes nothing), then the page's button unsubscribes", async () => {
    const { body } = await api('POST', '', { email: 'grace@example.com', firstName: 'Grace' });
    const id = String(body.data.id);
    const url = unsubscribeUrlOf((await smtp.waitFor(1))[0]);
    const page = await fetch(local(url));
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<form method="post">.*<button type="submit"/s);
    expect((await metaOf(id))?.ps_unsubscribed).toBeUndefined();
    // The form posts the page's fields to the page's own address.
    const button = await fetch(local(url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(button.status).toBe(200);
    expect((await metaOf(id)).ps_unsubscribed).toBe(true);
  });

  it('a tampered or made-up token changes nothing', async () => {
    const a = String((await api('POST', '', { email: 'a@example.com', firstName: 'A' })).body.data.id);
    const b = String((await api('POST', '', { email: 'b@example.com', firstName: 'B' })).body.data.id);
    const mails = await smtp.waitFor(2);
    const url = unsubscribeUrlOf(mails.find((m) => m.recipients[0] === 'a@example.com')!);
    const [payload, signature] = url.slice(url.lastIndexOf('/') + 1).split('.');
    // The payload re-pointed at contact b, with a's signature; the signature altered; nonsense.
    const repointed = Buffer.from(Buffer.from(payload, 'base64url').toString().replace(a, b)).toString(
      'base64url',
    );
    const altered = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    const base = url.slice(0, url.lastIndexOf('/') + 1);
    for (const token of [
      `${repointed}.${signature}`,
      `${payload}.${altered}`,
      'not-a-token',
      `${payload}.`,
    ]) {
      const res = await oneClick(`${base}${token}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({
        error: 'This unsubscribe link is not valid (incomplete or altered)',
      });
      expect((await fetch(local(`${base}${token}`))).status).toBe(404);
    }
    expect((await metaOf(a))?.ps_unsubscribed).toBeUndefined();
    expect((await metaOf(b))?.ps_unsubscribed).toBeUndefined();
  });

  it('subscribing again is an explicit API write with crm:write, after which email is sent again', async () => {
    const { body } = await api('POST', '', { email: 'back@example.com', firstName: 'Back' });
    const id = String(body.data.id);
    expect((await oneClick(unsubscribeUrlOf((await smtp.waitFor(1))[0]))).status).toBe(200);

    const reader = await tenant.keyFor('crm:read');
    expect((await api('PUT', `/${id}/email-subscription`, { subscribed: true }, reader)).status).toBe(403);
    expect((await api('PUT', `/${id}/email-subscription`, { subscribed: 'yes' })).body).toMatchObject({
      error: expect.stringContaining('subscribed must be true or false'),
    });
    expect((await metaOf(id)).ps_unsubscribed).toBe(true);

    const res = await api('PUT', `/${id}/email-subscription`, { subscribed: true });
    expect(res).toEqual({ status: 200, body: { data: { contactId: id, subscribed: true } } });
    expect((await metaOf(id))?.ps_unsubscribed).toBeUndefined();
    await rename(id, 'Back again');
    await smtp.waitFor(2);
    expect(smtp.received[1].parsed.subject).toBe('Hello Back again');
  });
});
