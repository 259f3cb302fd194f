import { createRandom } from '../../apps/admin/src/demo/demo-data';
import { CHART_SUBTYPES, FILTERED_CHARTS, FILTERED_KPIS, KPI_SUBTYPES } from '@app/metrics';
import { httpClient } from './http-client';

// What the upgrade test's database holds and what it is asked: sent and asked over HTTP only, so
// the same code fills a database of the previous release (scripts/build-upgrade-fixture.ts) and
// asks this one (test/upgrade-from-previous-release.e2e-spec.ts).

const DAY = 86_400_000;
/** Six days around the switch to summer time in Europe (2026-03-29). */
export const TRAFFIC_FROM = Date.parse('2026-03-26T00:00:00Z');
export const TRAFFIC_TO = TRAFFIC_FROM + 6 * DAY;
const PAGES = ['start', 'details', 'done'];

type TrackingEvent = Record<string, unknown>;

/**
 * Sessions spread over the six days, every attribute optional, with answers, clicks, conversions
 * (some naming a contact) and completions; events in random order within the batches.
 */
export function sessionTraffic(seed: number, sessions: number, contactIds: string[]): TrackingEvent[] {
  const random = createRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const at = (ms: number) => new Date(Math.min(TRAFFIC_TO - 1, ms)).toISOString();
  const events: TrackingEvent[] = [];
  for (let s = 0; s < sessions; s++) {
    const sessionId = `s${seed}-${s}`;
    const start = TRAFFIC_FROM + Math.floor(random() * (TRAFFIC_TO - TRAFFIC_FROM - 120_000));
    events.push({
      type: 'session_start',
      sessionId,
      occurredAt: at(start),
      visitorId: `v${seed}-${s % Math.max(1, Math.floor(sessions / 2))}`,
      device: pick(['mobile', 'desktop', 'tablet']),
      ...(random() < 0.7 ? { utm: { source: pick(['google', 'facebook', 'newsletter']) } } : {}),
      ...(random() < 0.6 ? { abVariant: pick(['original', 'variant']) } : {}),
    });
    let t = start;
    for (const slug of PAGES) {
      if (random() < 0.25) break;
      t += 1000 + Math.floor(random() * 40_000);
      events.push({
        type: 'page_view',
        sessionId,
        occurredAt: at(t),
        pageSlug: slug,
        ...(random() < 0.8 ? { timeOnPageMs: Math.floor(random() * 90_000) } : {}),
      });
      if (random() < 0.5)
        events.push({
          type: 'button_click',
          sessionId,
          occurredAt: at(t + 500),
          pageSlug: slug,
          buttonId: pick(['next', 'back']),
          buttonLabel: pick(['Next', 'Back']),
        });
      if (slug === 'details' && random() < 0.7)
        events.push({
          type: 'answer',
          sessionId,
          occurredAt: at(t + 800),
          questionId: pick(['question_1', 'question_2']),
          questionTitle: 'How did you hear of us?',
          answers: [pick(['Search', 'Friend', 'Ad'])],
        });
    }
    if (random() < 0.35) {
      const contactId = contactIds.length && random() < 0.5 ? { contactId: pick(contactIds) } : {};
      events.push({ type: 'conversion', sessionId, occurredAt: at(t + 2000), ...contactId });
    }
    if (random() < 0.3) events.push({ type: 'completion', sessionId, occurredAt: at(t + 3000) });
  }
  // Out of order: a batch's events arrive shuffled.
  for (let i = events.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [events[i], events[j]] = [events[j], events[i]];
  }
  return events;
}

/**
 * Late traffic for minutes already folded: a page view, click and completion for earlier
 * sessions, new sessions on the first days, and repeats of events already counted.
 */
export function lateTraffic(seed: number, earlier: TrackingEvent[]): TrackingEvent[] {
  const random = createRandom(seed);
  const starts = earlier.filter((e) => e.type === 'session_start');
  const late: TrackingEvent[] = [];
  for (const start of starts.filter(() => random() < 0.2)) {
    const t = Date.parse(start.occurredAt as string) + 90_000;
    late.push(
      {
        type: 'page_view',
        sessionId: start.sessionId,
        occurredAt: new Date(t).toISOString(),
        pageSlug: 'done',
      },
      { type: 'completion', sessionId: start.sessionId, occurredAt: new Date(t + 1000).toISOString() },
    );
  }
  const fresh = sessionTraffic(seed + 1, 40, []).map((e) => ({
    ...e,
    // Moved to the first two days, long folded when they arrive.
    occurredAt: new Date(
      TRAFFIC_FROM + ((Date.parse(e.occurredAt as string) - TRAFFIC_FROM) % (2 * DAY)),
    ).toISOString(),
  }));
  return [...late, ...fresh, ...earlier.filter(() => random() < 0.05)];
}

const FILTER = 'device=mobile&utmSource=google&utmSource=newsletter';
/** Windows: local days at Berlin across the switch, one such day, and a window to the millisecond. */
const WINDOWS = [
  'from=2026-03-26&to=2026-03-31&timezone=Europe/Berlin',
  'from=2026-03-29&to=2026-03-29&timezone=Europe/Berlin',
  'from=2026-03-26T03:17:12.345Z&to=2026-03-30T18:42:01.999Z&offset=-330',
];
const STEPS = 'steps=page:start,page:done,conversion&within=P1D';

/**
 * Every chart, KPI and insight of a funnel over each window, filtered, broken down and compared
 * forms, step funnels, and the funnel's contacts.
 */
export function upgradeQuestions(funnelId: string): string[] {
  const m = `/v1/funnels/${funnelId}/metrics`;
  const perWindow = (q: string) => [
    ...CHART_SUBTYPES.map((s) => `${m}/charts/${s}?${q}`),
    ...KPI_SUBTYPES.map((s) => `${m}/kpis/${s}?${q}`),
    ...[1, 2].map((n) => `${m}/insights/question_${n}?${q}`),
    ...FILTERED_CHARTS.map((s) => `${m}/charts/${s}?${q}&${FILTER}`),
    ...FILTERED_KPIS.map((s) => `${m}/kpis/${s}?${q}&${FILTER}`),
    `${m}/insights/question_1?${q}&${FILTER}`,
    `${m}/charts/chart_page_to_page_conversion_rate?${q}&abTest=variant`,
    ...FILTERED_KPIS.map((s) => `${m}/kpis/${s}?${q}&breakdown=utmSource`),
    ...CHART_SUBTYPES.map((s) => `${m}/charts/${s}?${q}&compare=previous_period`),
    ...KPI_SUBTYPES.map((s) => `${m}/kpis/${s}?${q}&compare=previous_period`),
    `${m}/funnel?${q}&${STEPS}`,
    `${m}/funnel?${q}&${STEPS}&exact=true`,
    `${m}/funnel?${q}&steps=page:details,answer:question_1,completion&within=PT1H&${FILTER}`,
  ];
  return [
    ...WINDOWS.flatMap(perWindow),
    `/v1/funnels/${funnelId}/contacts?limit=100`,
    `/v1/funnels/${funnelId}`,
  ];
}

/** The answers to `paths`, by path; any status but 200 fails. */
export async function ask(baseUrl: string, key: string, paths: string[]): Promise<Record<string, unknown>> {
  const api = httpClient(baseUrl, key);
  const answers: Record<string, unknown> = {};
  for (const path of paths) {
    const reply = await api.get(path);
    if (reply.status !== 200)
      throw new Error(`${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    answers[path] = reply.body;
  }
  return answers;
}

/** Sends tracking events in batches of 500; any status but 202 fails. */
export async function sendEvents(baseUrl: string, key: string, funnelId: string, events: unknown[]) {
  const api = httpClient(baseUrl, key);
  for (let i = 0; i < events.length; i += 500) {
    const reply = await api.post(`/v1/funnels/${funnelId}/events`, { events: events.slice(i, i + 500) });
    if (reply.status !== 202)
      throw new Error(`events answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  }
}

/** Creates `count` contacts through the API; returns their ids. */
export async function createContacts(baseUrl: string, key: string, funnelId: string, count: number) {
  const api = httpClient(baseUrl, key);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const reply = await api.post(`/v1/funnels/${funnelId}/contacts`, {
      email: `person-${i}@example.com`,
      firstName: `Person ${i}`,
    });
    if (reply.status !== 201)
      throw new Error(`contact answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    ids.push(reply.body.data.id as string);
  }
  return ids;
}
