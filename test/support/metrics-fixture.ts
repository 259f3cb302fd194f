import { DataSource } from 'typeorm';
import { Contact, ContactMessage } from '@app/contacts';
import type { TestApp } from './app';
import type { TenantFixture } from './factories';
import { httpClient } from './http-client';

/**
 * A small hand-made data set around the Saturday 2026-01-31 / Sunday 2026-02-01 boundary (UTC), so
 * the same events fall on different local days at offsets -120 (UTC+2) and +330 (UTC−5:30).
 * The suites assert figures worked out by hand from this list; see the comments.
 *
 * S1 starts 2026-01-31T21:30:00Z mobile facebook original: start(4000 ms) details(6000) done,
 *    clicks cta-next "Next", answers question_1 [Leads, Sales], converts, completes after 900 s.
 * S2 starts 22:10:00Z desktop google variant: start(2000) details, clicks cta-next "Next step",
 *    answers [Leads, Sales] then [Sales] (latest), converts. Its events arrive before its start.
 * S3 starts 2026-02-01T03:00:00Z tablet, no utm, no variant: start(1000), answers [Sales],
 *    completes after 1800 s.
 * S4 starts 05:20:30.500Z mobile facebook original: start(3000) details(5000), clicks cta-next
 *    (no label) at 05:20:45 and cta-back "Back" at 05:21:10.
 * S5 never starts: a page view start(7000) at 06:00:00Z and a click cta-next "Next" at 06:00:05Z
 *    (count as page views and clicks, never as a session).
 * S6 starts 2026-03-15T12:00:00Z other newsletter: start; M01..M11 start 2026-03-16 with
 *    utm sources src-01..src-11 (for the top-10 cut).
 */
export const SESSION_EVENTS = [
  // S2's events first, in an earlier batch than its session_start.
  {
    type: 'page_view',
    sessionId: 'S2',
    occurredAt: '2026-01-31T22:10:05Z',
    pageSlug: 'start',
    timeOnPageMs: 2000,
  },
  { type: 'page_view', sessionId: 'S2', occurredAt: '2026-01-31T22:11:00Z', pageSlug: 'details' },
  {
    type: 'button_click',
    sessionId: 'S2',
    occurredAt: '2026-01-31T22:10:07Z',
    pageSlug: 'start',
    buttonId: 'cta-next',
    buttonLabel: 'Next step',
  },
  {
    type: 'answer',
    sessionId: 'S2',
    occurredAt: '2026-01-31T22:13:00Z',
    questionId: 'question_1',
    questionTitle: 'What is your goal?',
    answers: ['Sales'],
  },
  {
    type: 'answer',
    sessionId: 'S2',
    occurredAt: '2026-01-31T22:12:00Z',
    questionId: 'question_1',
    questionTitle: 'Your goal?',
    answers: ['Leads', 'Sales'],
  },
  { type: 'conversion', sessionId: 'S2', occurredAt: '2026-01-31T22:20:00Z' },

  {
    type: 'session_start',
    sessionId: 'S1',
    occurredAt: '2026-01-31T21:30:00Z',
    visitorId: 'V1',
    device: 'mobile',
    utm: { source: 'facebook', medium: 'cpc' },
    abVariant: 'original',
  },
  {
    type: 'page_view',
    sessionId: 'S1',
    occurredAt: '2026-01-31T21:30:10Z',
    pageSlug: 'start',
    timeOnPageMs: 4000,
  },
  {
    type: 'page_view',
    sessionId: 'S1',
    occurredAt: '2026-01-31T21:31:00Z',
    pageSlug: 'details',
    timeOnPageMs: 6000,
  },
  { type: 'page_view', sessionId: 'S1', occurredAt: '2026-01-31T21:32:00Z', pageSlug: 'done' },
  {
    type: 'button_click',
    sessionId: 'S1',
    occurredAt: '2026-01-31T21:30:12Z',
    pageSlug: 'start',
    buttonId: 'cta-next',
    buttonLabel: 'Next',
  },
  {
    type: 'answer',
    sessionId: 'S1',
    occurredAt: '2026-01-31T21:31:30Z',
    questionId: 'question_1',
    questionTitle: 'Your goal?',
    answers: ['Leads', 'Sales'],
  },
  {
    type: 'conversion',
    sessionId: 'S1',
    occurredAt: '2026-01-31T21:40:00Z',
    contactId: '00000000-0000-4000-8000-000000000001',
  },
  { type: 'completion', sessionId: 'S1', occurredAt: '2026-01-31T21:45:00Z' },
  { type: 'completion', sessionId: 'S1', occurredAt: '2026-01-31T21:50:00Z' },
] as const;

export const LATER_EVENTS = [
  {
    type: 'session_start',
    sessionId: 'S2',
    occurredAt: '2026-01-31T22:10:00Z',
    visitorId: 'V2',
    device: 'desktop',
    utm: { source: 'google' },
    abVariant: 'variant',
  },

  {
    type: 'session_start',
    sessionId: 'S3',
    occurredAt: '2026-02-01T03:00:00Z',
    visitorId: 'V3',
    device: 'tablet',
  },
  {
    type: 'page_view',
    sessionId: 'S3',
    occurredAt: '2026-02-01T03:00:30Z',
    pageSlug: 'start',
    timeOnPageMs: 1000,
  },
  {
    type: 'answer',
    sessionId: 'S3',
    occurredAt: '2026-02-01T03:01:00Z',
    questionId: 'question_1',
    questionTitle: 'What is your goal?',
    answers: ['Sales'],
  },
  { type: 'completion', sessionId: 'S3', occurredAt: '2026-02-01T03:30:00Z' },

  {
    type: 'session_start',
    sessionId: 'S4',
    occurredAt: '2026-02-01T05:20:30.500Z',
    visitorId: 'V1',
    device: 'mobile',
    utm: { source: 'facebook' },
    abVariant: 'original',
  },
  {
    type: 'page_view',
    sessionId: 'S4',
    occurredAt: '2026-02-01T05:20:40Z',
    pageSlug: 'start',
    timeOnPageMs: 3000,
  },
  {
    type: 'page_view',
    sessionId: 'S4',
    occurredAt: '2026-02-01T05:21:00Z',
    pageSlug: 'details',
    timeOnPageMs: 5000,
  },
  {
    type: 'button_click',
    sessionId: 'S4',
    occurredAt: '2026-02-01T05:20:45Z',
    pageSlug: 'start',
    buttonId: 'cta-next',
  },
  {
    type: 'button_click',
    sessionId: 'S4',
    occurredAt: '2026-02-01T05:21:10Z',
    pageSlug: 'details',
    buttonId: 'cta-back',
    buttonLabel: 'Back',
  },

  {
    type: 'page_view',
    sessionId: 'S5',
    occurredAt: '2026-02-01T06:00:00Z',
    pageSlug: 'start',
    timeOnPageMs: 7000,
  },
  {
    type: 'button_click',
    sessionId: 'S5',
    occurredAt: '2026-02-01T06:00:05Z',
    pageSlug: 'start',
    buttonId: 'cta-next',
    buttonLabel: 'Next',
  },

  {
    type: 'session_start',
    sessionId: 'S6',
    occurredAt: '2026-03-15T12:00:00Z',
    visitorId: 'V6',
    device: 'other',
    utm: { source: 'newsletter' },
  },
  { type: 'page_view', sessionId: 'S6', occurredAt: '2026-03-15T12:00:01Z', pageSlug: 'start' },
  ...Array.from({ length: 11 }, (_, i) => ({
    type: 'session_start',
    sessionId: `M${String(i + 1).padStart(2, '0')}`,
    occurredAt: `2026-03-16T10:${String(i).padStart(2, '0')}:00Z`,
    visitorId: `VM${i}`,
    device: 'desktop',
    utm: { source: `src-${String(i + 1).padStart(2, '0')}` },
  })),
];

/** Contacts by meta.ps_converted_at; messages by send time (M3's opening implies its delivery). */
export const CONTACTS = {
  C1: '2026-01-31T21:40:00.000Z',
  C2: '2026-01-31T22:20:00.000Z',
  C3: '2026-02-01T21:59:59.999Z',
  C4: '2026-02-01T22:00:00.000Z',
  C5: '2025-12-20T10:00:00.000Z',
};
export const MESSAGES = {
  M1: '2026-01-31T21:41:00.000Z',
  M2: '2026-01-31T21:42:00.000Z',
  M3: '2026-02-01T10:00:00.000Z',
  M4: '2026-03-01T10:00:00.000Z',
};

export async function seedMetricsFixture(
  t: TestApp,
  tenant: TenantFixture,
  other: TenantFixture,
): Promise<void> {
  const api = httpClient(t.baseUrl, tenant.key);
  const events = `/v1/funnels/${tenant.funnelId}/events`;
  const send = async (list: readonly unknown[]) => {
    const res = await api.post(events, { events: list });
    if (res.status !== 202) throw new Error(`seeding failed: ${JSON.stringify(res.body)}`);
  };
  await send(SESSION_EVENTS);
  // Sent again in full: every event is a repeat and counts once.
  await send(SESSION_EVENTS);
  await send(LATER_EVENTS);

  const db = t.app.get(DataSource);
  const contacts = db.getRepository(Contact);
  const saved: Record<string, Contact> = {};
  for (const [name, convertedAt] of Object.entries(CONTACTS)) {
    saved[name] = await contacts.save(
      contacts.create({
        funnelId: tenant.funnelId,
        companyId: tenant.companyId,
        status: 'lead',
        email: `${name.toLowerCase()}@example.com`,
        convertedAt: new Date(convertedAt),
      }),
    );
  }
  await contacts.save(
    contacts.create({
      funnelId: tenant.funnelId,
      companyId: tenant.companyId,
      status: 'lead',
      convertedAt: null,
    }),
  );
  // Another company's funnel at the same times must never show up.
  const foreign = await contacts.save(
    contacts.create({
      funnelId: other.funnelId,
      companyId: other.companyId,
      status: 'lead',
      convertedAt: new Date(CONTACTS.C1),
    }),
  );
  const messages = db.getRepository(ContactMessage);
  const ids: Record<string, string> = {};
  for (const [name, sentAt] of Object.entries(MESSAGES)) {
    const m = await messages.save(
      messages.create({
        contactId: saved.C1.id,
        funnelId: tenant.funnelId,
        name: 'welcome',
        type: 'email',
        content: 'Hi',
        createdAt: new Date(sentAt),
      }),
    );
    ids[name] = m.id;
  }
  await messages.save(
    messages.create({
      contactId: foreign.id,
      funnelId: other.funnelId,
      name: 'x',
      type: 'sms',
      content: 'x',
      createdAt: new Date(MESSAGES.M1),
    }),
  );
  const message = (type: string, name: string, occurredAt: string) => ({
    type,
    sessionId: 'mail',
    occurredAt,
    messageId: ids[name],
  });
  await send([
    message('message_delivered', 'M1', '2026-01-31T21:41:05Z'),
    message('message_delivered', 'M1', '2026-01-31T21:41:30Z'),
    message('message_delivered', 'M2', '2026-01-31T21:42:05Z'),
    message('message_opened', 'M1', '2026-01-31T21:50:00Z'),
    message('message_opened', 'M3', '2026-02-01T10:05:00Z'),
  ]);

  // The other company's funnel gets traffic at the same times.
  const foreignApi = httpClient(t.baseUrl, other.key);
  const res = await foreignApi.post(`/v1/funnels/${other.funnelId}/events`, {
    events: [...SESSION_EVENTS, ...LATER_EVENTS],
  });
  if (res.status !== 202) throw new Error(`seeding failed: ${JSON.stringify(res.body)}`);
}
