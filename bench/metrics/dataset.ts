import { DataSource } from 'typeorm';
import { EventsService, parseEventBatch, TrackedEvent } from '@app/metrics';
import { createRandom } from '../../apps/admin/src/demo/demo-data';
import { demoTraffic, RawEvent, TrafficOptions } from '../../apps/admin/src/demo/demo-traffic';
import { BENCH_PAGES } from './bench-env';

const BATCH = 5000;
// Two batches in flight: one is prepared in Node while the other is written by PostgreSQL.
const IN_FLIGHT = 2;

export interface TrafficPlan {
  funnelId: string;
  events: number;
  from: number;
  to: number;
  seed: number;
  prefix: string;
}

/** Sessions needed for about `events` events (the generator's mean events per session, sampled). */
function sessionsFor(plan: TrafficPlan): number {
  let events = 0;
  const sample = 2000;
  const options: TrafficOptions = {
    pages: BENCH_PAGES,
    from: plan.from,
    to: plan.to,
    sessions: sample,
    random: createRandom(plan.seed + 1),
  };
  for (const session of demoTraffic(options)) events += session.length;
  return Math.ceil((plan.events / events) * sample);
}

function parse(raw: RawEvent[]): TrackedEvent[] {
  const events: TrackedEvent[] = [];
  // The same validation as the HTTP route (1000 events per call), then one large write.
  for (let i = 0; i < raw.length; i += 1000)
    events.push(...parseEventBatch({ events: raw.slice(i, i + 1000) }));
  return events;
}

/**
 * About `plan.events` events of realistic traffic, in batches of about 5000 events, whole sessions
 * each (every generated session is sent: cutting at exactly plan.events would end the traffic
 * before the end of the window, leaving its last minutes empty). Deterministic for a seed.
 */
export function* trafficBatches(plan: TrafficPlan): Generator<{ events: RawEvent[]; sessions: number }> {
  const traffic = demoTraffic({
    pages: BENCH_PAGES,
    from: plan.from,
    to: plan.to,
    sessions: sessionsFor(plan),
    random: createRandom(plan.seed),
    prefix: plan.prefix,
  });
  let batch: RawEvent[] = [];
  let sessions = 0;
  for (const session of traffic) {
    batch.push(...session);
    sessions++;
    if (batch.length < BATCH) continue;
    yield { events: batch, sessions };
    batch = [];
    sessions = 0;
  }
  if (batch.length) yield { events: batch, sessions };
}

/**
 * Ingests about `plan.events` events of realistic traffic through EventsService (the code behind
 * POST /v1/funnels/{id}/events), in batches of 5000. Returns the events and sessions written.
 */
export async function ingestTraffic(
  service: EventsService,
  plan: TrafficPlan,
  onProgress: (events: number) => void,
): Promise<{ events: number; sessions: number }> {
  const batches = trafficBatches(plan);
  let written = 0;
  let sessions = 0;
  const worker = async () => {
    for (let next = batches.next(); !next.done; next = batches.next()) {
      sessions += next.value.sessions;
      const events = parse(next.value.events);
      await service.record(plan.funnelId, events);
      written += events.length;
      onProgress(written);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return { events: written, sessions };
}

/**
 * Contacts converted over the window and messages sent to some of them, with delivery (90 %) and
 * opening (40 %) events through EventsService. The same number for every funnel: these measures
 * read the contacts and contact_messages indexes, whose size does not depend on events.
 */
export async function seedContactsAndMessages(
  dataSource: DataSource,
  service: EventsService,
  funnel: { funnelId: string; companyId: string },
  window: { from: number; to: number },
  contacts: number,
): Promise<void> {
  const raw = await seedContacts((text, params) => dataSource.query(text, params), funnel, window, contacts);
  for (let i = 0; i < raw.length; i += BATCH)
    await service.record(funnel.funnelId, parse(raw.slice(i, i + BATCH)));
}

/**
 * Inserts `contacts` contacts converted over the window and a message to each; returns the
 * messages' delivery and opening events, for the caller to send.
 */
export async function seedContacts(
  query: (text: string, params: unknown[]) => Promise<{ id: string; created_at: Date }[]>,
  funnel: { funnelId: string; companyId: string },
  window: { from: number; to: number },
  contacts: number,
): Promise<RawEvent[]> {
  const from = new Date(window.from).toISOString();
  const to = new Date(window.to).toISOString();
  await query(
    `INSERT INTO contacts (funnel_id, company_id, status, email, converted_at)
     SELECT $1, $2, 'lead', 'bench' || i || '@example.com', $3::timestamptz + random() * ($4::timestamptz - $3::timestamptz)
     FROM generate_series(1, $5::int) AS i`,
    [funnel.funnelId, funnel.companyId, from, to, contacts],
  );
  const messages = await query(
    `INSERT INTO contact_messages (contact_id, funnel_id, name, type, content, created_at)
     SELECT id, funnel_id, 'welcome', 'email', 'Welcome!', least(converted_at + interval '1 minute', $2::timestamptz)
     FROM contacts WHERE funnel_id = $1 AND converted_at IS NOT NULL
     RETURNING id, created_at`,
    [funnel.funnelId, to],
  );
  const random = createRandom(7);
  const raw: RawEvent[] = [];
  for (const m of messages) {
    const sent = m.created_at.getTime();
    const at = (ms: number) => new Date(Math.min(ms, window.to)).toISOString();
    if (random() < 0.9)
      raw.push({
        type: 'message_delivered',
        sessionId: `mail-${m.id}`,
        occurredAt: at(sent + 5_000),
        messageId: m.id,
      });
    if (random() < 0.4)
      raw.push({
        type: 'message_opened',
        sessionId: `mail-${m.id}`,
        occurredAt: at(sent + 3_600_000),
        messageId: m.id,
      });
  }
  return raw;
}
