import type { AnswerFields, PageViewFields, SessionStartFields, TrackedEvent } from './event-types';

export interface LatestAnswer {
  /** occurredAt (epoch ms) and event id of the answer: the latest wins, the id breaks ties. */
  at: number;
  eventId: string;
  answers: string[];
}

/**
 * What a session has done so far. Every session-scoped fact is attributed to the session's start
 * (its earliest `session_start`), so counts over any window stay exact and additive. Until a
 * `session_start` arrives the session is pending: its facts are kept here but counted nowhere.
 */
export interface SessionState {
  sessionId: string;
  startedAt: number | null;
  startEventId: string | null;
  visitorId: string | null;
  device: string | null;
  utmSource: string | null;
  abVariant: string | null;
  /** Distinct page slugs viewed, sorted. */
  pages: string[];
  /** Earliest conversion / completion (epoch ms). */
  convertedAt: number | null;
  completedAt: number | null;
  answers: Record<string, LatestAnswer>;
}

/** Per-session counters of one rollup row (dimension + key) at the session's start. */
export interface SessionContribution {
  dimension: string;
  key: string;
  sessions: number;
  conversions: number;
  completions: number;
  completionMs: number;
}

export const SESSION_DIMENSIONS = {
  all: 'all',
  device: 'device',
  source: 'source',
  /** Sessions that viewed a page (key = slug), for abTest=all. */
  page: 'page',
  pageOf: (variant: string) => `page:${variant}`,
  answer: (questionId: string) => `answer:${questionId}`,
  answerGroup: (questionId: string) => `answer-group:${questionId}`,
} as const;

export const GROUP_SEPARATOR = '; ';

export function emptySession(sessionId: string): SessionState {
  return {
    sessionId,
    startedAt: null,
    startEventId: null,
    visitorId: null,
    device: null,
    utmSource: null,
    abVariant: null,
    pages: [],
    convertedAt: null,
    completedAt: null,
    answers: {},
  };
}

const earlier = (at: number, id: string, thanAt: number | null, thanId: string | null) =>
  thanAt === null || at < thanAt || (at === thanAt && id < (thanId ?? ''));
const min = (a: number | null, b: number) => (a === null ? b : Math.min(a, b));

/** The session after the given new events (order-independent: the result never depends on arrival order). */
export function applyEvents(state: SessionState, events: TrackedEvent[]): SessionState {
  const next: SessionState = { ...state, pages: [...state.pages], answers: { ...state.answers } };
  const pages = new Set(next.pages);
  for (const event of events) {
    switch (event.type) {
      case 'session_start': {
        if (!earlier(event.occurredAt, event.eventId, next.startedAt, next.startEventId)) break;
        const f = event.fields as SessionStartFields;
        next.startedAt = event.occurredAt;
        next.startEventId = event.eventId;
        next.visitorId = f.visitorId;
        next.device = f.device;
        next.utmSource = f.utm?.source ?? null;
        next.abVariant = f.abVariant ?? null;
        break;
      }
      case 'page_view':
        pages.add((event.fields as PageViewFields).pageSlug);
        break;
      case 'answer': {
        const f = event.fields as AnswerFields;
        const current = next.answers[f.questionId];
        const later =
          !current ||
          event.occurredAt > current.at ||
          (event.occurredAt === current.at && event.eventId > current.eventId);
        if (later)
          next.answers[f.questionId] = { at: event.occurredAt, eventId: event.eventId, answers: f.answers };
        break;
      }
      case 'conversion':
        next.convertedAt = min(next.convertedAt, event.occurredAt);
        break;
      case 'completion':
        next.completedAt = min(next.completedAt, event.occurredAt);
        break;
      default:
        break;
    }
  }
  next.pages = [...pages].sort();
  return next;
}

/** True when nothing the metrics read differs (the session row need not be written). */
export function sameSession(a: SessionState, b: SessionState): boolean {
  const scalars = [
    'startedAt',
    'startEventId',
    'visitorId',
    'device',
    'utmSource',
    'abVariant',
    'convertedAt',
    'completedAt',
  ] as const;
  if (scalars.some((k) => a[k] !== b[k]) || a.pages.join(',') !== b.pages.join(',')) return false;
  const questions = Object.keys(a.answers);
  if (questions.length !== Object.keys(b.answers).length) return false;
  return questions.every(
    (q) =>
      b.answers[q] && a.answers[q].eventId === b.answers[q].eventId && a.answers[q].at === b.answers[q].at,
  );
}

/**
 * The rollup rows a session adds at its start time; none while it is pending. Mirrored in SQL by
 * rawSessionSums() in rollups/raw-sessions.ts (a spec compares the two on random sessions).
 */
export function sessionContributions(state: SessionState): SessionContribution[] {
  if (state.startedAt === null) return [];
  const one = (dimension: string, key: string): SessionContribution => ({
    dimension,
    key,
    sessions: 1,
    conversions: 0,
    completions: 0,
    completionMs: 0,
  });
  const completed = state.completedAt !== null;
  const rows: SessionContribution[] = [
    {
      ...one(SESSION_DIMENSIONS.all, ''),
      conversions: state.convertedAt !== null ? 1 : 0,
      completions: completed ? 1 : 0,
      // A completion stamped before its session_start (clock skew) counts as immediate.
      completionMs: completed ? Math.max(0, (state.completedAt as number) - state.startedAt) : 0,
    },
  ];
  if (state.device) rows.push(one(SESSION_DIMENSIONS.device, state.device));
  if (state.utmSource) rows.push(one(SESSION_DIMENSIONS.source, state.utmSource));
  for (const page of state.pages) {
    rows.push(one(SESSION_DIMENSIONS.page, page));
    if (state.abVariant) rows.push(one(SESSION_DIMENSIONS.pageOf(state.abVariant), page));
  }
  for (const [questionId, latest] of Object.entries(state.answers)) {
    const distinct = [...new Set(latest.answers)];
    for (const answer of distinct) rows.push(one(SESSION_DIMENSIONS.answer(questionId), answer));
    rows.push(one(SESSION_DIMENSIONS.answerGroup(questionId), distinct.join(GROUP_SEPARATOR)));
  }
  return rows;
}
