import { AutomationsService } from '@app/automations';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { ReceivedMail, SmtpReceiver } from './support/smtp-receiver';
import { eventually } from './support/webhook-receiver';

jest.setTimeout(90_000);

const TEMPLATE =
  'Hi {{firstName}}, your offer: https://acme.example/offer?id=7 (or https://acme.example/help)';

/** Delivery observed by the service itself: SMTP acceptance, the open pixel and tracked clicks. */
describe('Email delivery and engagement', () => {
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
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const automation = (tracking?: boolean) =>
    t.app.get(AutomationsService).create({
      funnelId: tenant.funnelId,
      on: 'contact.created',
      message: 'email',
      subject: 'Offer',
      template: TEMPLATE,
      tracking,
    });
  const createContact = async (email: string) => {
    const res = await fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts`, {
      method: 'POST',
      headers: { 'x-service-api-key': tenant.key, 'content-type': 'application/json' },
      body: JSON.stringify({ email, firstName: 'Ada' }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  /** The contact's messages, as the REST API shows them. */
  const messagesOf = async (contactId: string) => {
    const res = await fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts/${contactId}`, {
      headers: { 'x-service-api-key': tenant.key },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { messages: Record<string, unknown>[] } }).data.messages;
  };
  /** The contact's one message. */
  const messageOf = async (contactId: string) => {
    const messages = await messagesOf(contactId);
    expect(messages).toHaveLength(1);
    return messages[0];
  };
  const kpi = async (subtype: string) => {
    const day = new Date().toISOString().slice(0, 10);
    const res = await fetch(
      `${t.baseUrl}/v1/funnels/${tenant.funnelId}/metrics/kpis/${subtype}?from=${day}&to=${day}`,
      { headers: { 'x-service-api-key': tenant.key } },
    );
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { value: number | null; count?: number } }).data;
  };
  /** The `<a href>` and `<img src>` addresses of the HTML part, as this test app serves them. */
  const addresses = (mail: ReceivedMail, tag: 'a href' | 'img src') =>
    [...String(mail.parsed.html).matchAll(new RegExp(`<${tag}="([^"]+)"`, 'g'))].map((m) => {
      const url = new URL(m[1].replace(/&amp;/g, '&'));
      return url.hostname === 'localhost' ? `${t.baseUrl}${url.pathname}` : url.href;
    });

  it('records delivery on acceptance, an open at the pixel, and redirects a click only to the link it carried', async () => {
    await automation();
    await createContact('ada@example.com');
    const [mail] = await smtp.waitFor(1);
    // SMTP acceptance alone makes the message delivered: 100 % delivered, none opened yet.
    const delivery = await eventually(async () => {
      const rate = await kpi('kpi_messages_delivery_rate');
      return rate.value === 100 && rate;
    });
    expect(delivery).toMatchObject({ value: 100, count: 1 });
    expect(await kpi('kpi_messages_open_rate')).toMatchObject({ value: 0, count: 1 });

    const [offer, help, unsubscribe] = addresses(mail, 'a href');
    expect(offer).toMatch(/\/email\/click\/[\w-]+\.[\w-]+$/);
    expect(help).toMatch(/\/email\/click\//);
    expect(unsubscribe).toMatch(/\/email\/unsubscribe\//);
    expect(mail.parsed.text).toContain('https://acme.example/offer?id=7');

    const [pixel] = addresses(mail, 'img src');
    const image = await fetch(pixel);
    expect([image.status, image.headers.get('content-type')]).toEqual([200, 'image/gif']);
    await eventually(async () => (await kpi('kpi_messages_open_rate')).value === 100);

    const click = await fetch(help, { redirect: 'manual' });
    expect([click.status, click.headers.get('location')]).toEqual([302, 'https://acme.example/help']);
    const first = await fetch(offer, { redirect: 'manual' });
    expect(first.headers.get('location')).toBe('https://acme.example/offer?id=7');
    // The first open counts: still one message opened of one delivered.
    expect(await kpi('kpi_messages_open_rate')).toMatchObject({ value: 100, count: 1 });
  });

  it("shows the message's state on the contact: delivered on acceptance, then the first open, then every click", async () => {
    await automation();
    const contactId = await createContact('lin@example.com');
    const [mail] = await smtp.waitFor(1);
    // The server has the mail a moment before the message is recorded.
    const delivered = await eventually(async () => {
      const [message] = await messagesOf(contactId);
      return message?.status === 'delivered' && message;
    });
    expect(delivered).toMatchObject({ type: 'email', subject: 'Offer', clicks: 0 });
    expect(delivered.deliveredAt).toBe(delivered.sentAt);
    expect(Date.parse(delivered.sentAt as string)).not.toBeNaN();
    expect(delivered).not.toHaveProperty('openedAt');
    expect(delivered).not.toHaveProperty('clickedAt');

    const [pixel] = addresses(mail, 'img src');
    expect((await fetch(pixel)).status).toBe(200);
    const opened = await messageOf(contactId);
    expect(opened).toMatchObject({ status: 'opened', clicks: 0, sentAt: delivered.sentAt });
    expect(Date.parse(opened.openedAt as string)).toBeGreaterThanOrEqual(
      Date.parse(delivered.sentAt as string),
    );
    // A later open changes nothing: the first one counts.
    expect((await fetch(pixel)).status).toBe(200);
    expect(await messageOf(contactId)).toEqual(opened);

    const [offer, help] = addresses(mail, 'a href');
    expect((await fetch(offer, { redirect: 'manual' })).status).toBe(302);
    const clicked = await messageOf(contactId);
    expect(clicked).toMatchObject({ status: 'opened', openedAt: opened.openedAt, clicks: 1 });
    expect(Date.parse(clicked.clickedAt as string)).toBeGreaterThanOrEqual(
      Date.parse(opened.openedAt as string),
    );
    expect((await fetch(help, { redirect: 'manual' })).status).toBe(302);
    expect(await messageOf(contactId)).toEqual({ ...clicked, clicks: 2 });
  });

  it('a click alone opens the message, and a token re-pointed at another link is refused', async () => {
    await automation();
    const contactId = await createContact('grace@example.com');
    const [mail] = await smtp.waitFor(1);
    const [offer] = addresses(mail, 'a href');
    const token = offer.slice(offer.lastIndexOf('/') + 1);
    const [payload, signature] = token.split('.');
    const otherLink = Buffer.from(Buffer.from(payload, 'base64url').toString().replace(/:0$/, ':1')).toString(
      'base64url',
    );
    const base = offer.slice(0, offer.lastIndexOf('/') + 1);
    for (const forged of [`${otherLink}.${signature}`, `${payload}.x${signature.slice(1)}`]) {
      const res = await fetch(`${base}${forged}`, { redirect: 'manual' });
      expect(res.status).toBe(404);
      expect(res.headers.get('location')).toBeNull();
    }
    await eventually(async () => (await kpi('kpi_messages_delivery_rate')).value === 100);
    expect((await kpi('kpi_messages_open_rate')).value).toBe(0);
    // The forged tokens recorded nothing on the message either.
    expect(await messageOf(contactId)).toMatchObject({ status: 'delivered', clicks: 0 });
    expect(await messageOf(contactId)).not.toHaveProperty('openedAt');
    expect((await fetch(offer, { redirect: 'manual' })).status).toBe(302);
    await eventually(async () => (await kpi('kpi_messages_open_rate')).value === 100);
    const message = await messageOf(contactId);
    expect(message).toMatchObject({ status: 'opened', clicks: 1 });
    expect(message.openedAt).toBe(message.clickedAt);
  });

  it('sends plain links and no pixel when the automation does not track', async () => {
    await automation(false);
    await createContact('plain@example.com');
    const [mail] = await smtp.waitFor(1);
    expect(addresses(mail, 'img src')).toEqual([]);
    const links = addresses(mail, 'a href');
    expect(links.slice(0, 2)).toEqual(['https://acme.example/offer?id=7', 'https://acme.example/help']);
    expect(links[2]).toMatch(/\/email\/unsubscribe\//);
  });
});
