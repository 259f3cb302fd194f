import { pick, UTM_SOURCES } from './demo-data';

/** A tracking event as a client sends it (POST /v1/funnels/{funnelId}/events). */
export type RawEvent = Record<string, unknown> & { type: string; sessionId: string; occurredAt: string };

export interface TrafficOptions {
  /** Funnel pages in order; pages 2 to 4 ask question_1 to question_3. */
  pages: readonly { slug: string; title: string }[];
  /** Sessions start in [from, to) (epoch ms), busier in the afternoon and on weekdays. */
  from: number;
  to: number;
  sessions: number;
  random: () => number;
  /** Prefix of the session ids, so several runs never share a session. */
  prefix?: string;
}

const HOUR = 3_600_000;
const QUESTIONS = [
  {
    title: 'What is your main goal?',
    options: ['More leads', 'Better conversion', 'Brand awareness', 'More sales'],
  },
  { title: 'What is your monthly budget?', options: ['Under 1,000 €', '1,000–5,000 €', 'Over 5,000 €'] },
  { title: 'How soon do you want to start?', options: ['Immediately', 'Within a month', 'Just researching'] },
];
const DEVICES = [
  ['mobile', 0.56],
  ['desktop', 0.34],
  ['tablet', 0.08],
  ['other', 0.02],
] as const;
const SOURCE_WEIGHTS = [0.34, 0.26, 0.16, 0.1, 0.09, 0.05];

// Relative traffic by local hour (a visitor day peaking mid-afternoon) and by weekday (Mon..Sun).
const HOURLY = [2, 1, 1, 1, 1, 2, 4, 6, 8, 9, 10, 10, 11, 11, 12, 12, 12, 11, 10, 10, 9, 7, 5, 3];
const WEEKDAY = [1.1, 1.1, 1.05, 1, 0.95, 0.75, 0.7];

function weighted<T>(random: () => number, items: readonly (readonly [T, number])[]): T {
  let r = random();
  for (const [item, weight] of items) {
    if ((r -= weight) < 0) return item;
  }
  return items[items.length - 1][0];
}

function hourWeight(ms: number): number {
  const d = new Date(ms);
  return HOURLY[d.getUTCHours()] * WEEKDAY[(d.getUTCDay() + 6) % 7];
}

/**
 * The end of the busiest hour of traffic in the week of whole hours before `ms` (the latest of
 * equals): where a window ending in the busiest minutes this traffic has should end.
 */
export function busiestHourEnd(ms: number): number {
  const last = Math.floor(ms / HOUR) * HOUR - HOUR;
  let busiest = last;
  for (let h = last; h > last - 7 * 24 * HOUR; h -= HOUR)
    if (hourWeight(h) > hourWeight(busiest)) busiest = h;
  return busiest + HOUR;
}

/** One session's events, in time order: a start, page views with time on page, clicks, answers, conversion, completion. */
function sessionEvents(o: TrafficOptions, sessionId: string, startedAt: number): RawEvent[] {
  const { random, pages } = o;
  const at = (ms: number) => new Date(ms).toISOString();
  const device = weighted(random, DEVICES);
  const utmSource =
    random() < 0.7
      ? weighted(
          random,
          UTM_SOURCES.map((s, i) => [s, SOURCE_WEIGHTS[i]] as const),
        )
      : undefined;
  const inTest = random() < 0.8;
  const abVariant = inTest ? (random() < 0.5 ? 'original' : 'variant') : undefined;
  const events: RawEvent[] = [
    {
      type: 'session_start',
      sessionId,
      occurredAt: at(startedAt),
      visitorId: `${sessionId}-v`,
      device,
      ...(utmSource
        ? {
            utm: {
              source: utmSource,
              medium: utmSource === 'newsletter' ? 'email' : 'cpc',
              campaign: 'autumn',
            },
          }
        : {}),
      ...(abVariant ? { abVariant } : {}),
    },
  ];
  // The variant keeps a few more visitors on every page.
  const stay = abVariant === 'variant' ? 0.74 : 0.68;
  let t = startedAt + 500 + Math.floor(random() * 1500);
  for (let i = 0; i < pages.length; i++) {
    const page = pages[i];
    const leaves = i === pages.length - 1 || random() > stay;
    // Forms (pages with a question, the contact page) hold visitors longer than the welcome page.
    const timeOnPageMs = 2000 + i * 6000 + Math.floor(random() * random() * 60_000);
    events.push({ type: 'page_view', sessionId, occurredAt: at(t), pageSlug: page.slug, timeOnPageMs });
    const question = QUESTIONS[i - 1];
    if (question && i < pages.length - 1) {
      const first = pick(random, question.options);
      const chosen =
        i === 1 && random() < 0.3 ? new Set([first, pick(random, question.options)]) : new Set([first]);
      // Clients send the options in the order the question lists them.
      const answers = question.options.filter((option) => chosen.has(option));
      events.push({
        type: 'answer',
        sessionId,
        occurredAt: at(t + Math.floor(timeOnPageMs * 0.8)),
        questionId: `question_${i}`,
        questionTitle: question.title,
        answers,
      });
    }
    if (i === pages.length - 2 && !leaves) {
      events.push({ type: 'conversion', sessionId, occurredAt: at(t + timeOnPageMs - 200) });
    }
    if (!leaves || random() < 0.2) {
      const last = i === pages.length - 1;
      events.push({
        type: 'button_click',
        sessionId,
        occurredAt: at(t + timeOnPageMs - 100),
        pageSlug: page.slug,
        buttonId: last ? 'cta-finish' : i === pages.length - 2 ? 'cta-submit' : 'cta-next',
        buttonLabel: last ? 'Finish' : i === pages.length - 2 ? 'Send my request' : 'Next',
      });
    }
    // Most, not all, visitors who reach the last page also complete every required step.
    if (i === pages.length - 1 && random() < 0.85) {
      events.push({ type: 'completion', sessionId, occurredAt: at(t + timeOnPageMs) });
    }
    if (leaves) break;
    t += timeOnPageMs;
  }
  return events;
}

/**
 * Realistic funnel traffic, session by session in start-time order: devices, UTM sources, A/B
 * variants, page views with time on page, clicks, answers to question_1..question_3, conversions
 * and completions. Deterministic for a given random source.
 */
export function* demoTraffic(o: TrafficOptions): Generator<RawEvent[]> {
  const firstHour = Math.floor(o.from / HOUR) * HOUR;
  // The weight of the part of an hour inside [from, to): a window that starts or ends within an
  // hour gets that share of the hour's sessions, so its first and last minutes are as busy as
  // any others at that time of day (not a whole hour's sessions squeezed into a few minutes).
  const weightInside = (h: number) =>
    (hourWeight(h) * (Math.min(h + HOUR, o.to) - Math.max(h, o.from))) / HOUR;
  let total = 0;
  for (let h = firstHour; h < o.to; h += HOUR) total += weightInside(h);
  const perWeight = o.sessions / total;
  let weightSoFar = 0;
  let n = 0;
  for (let h = firstHour; h < o.to && n < o.sessions; h += HOUR) {
    weightSoFar += weightInside(h);
    // Rounded from the running total, so the last hour brings the count to exactly `sessions`.
    const count = Math.min(Math.round(weightSoFar * perWeight), o.sessions) - n;
    const lo = Math.max(h, o.from);
    const hi = Math.min(h + HOUR, o.to);
    const starts = Array.from({ length: count }, () => lo + Math.floor(o.random() * (hi - lo))).sort(
      (a, b) => a - b,
    );
    for (const startedAt of starts)
      yield sessionEvents(o, `${o.prefix ?? 's'}${(n++).toString(36)}`, startedAt);
  }
}
