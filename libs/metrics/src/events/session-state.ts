import type { AnswerFields, PageViewFields, SessionStartFields, TrackedEvent } from './event-types';
import {
  countsOutcomes,
  DECLARED_DIMENSIONS,
  FILTER_NAMES,
  GROUP_SEPARATOR,
  segmentKey,
  SessionDimension,
  START_ATTRIBUTE_NAMES,
  START_ATTRIBUTES,
  StartAttribute,
} from './session-definitions';

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
 * What the start gives (device, UTM source, …) is declared in session-definitions.ts.
 */
export interface SessionState extends Record<StartAttribute, string | null> {
  sessionId: string;
  startedAt: number | null;
  startEventId: string | null;
  /** Distinct page slugs viewed, sorted. */
  pages: string[];
  /** Earliest conversion / completion (epoch ms). */
  convertedAt: number | null;
  completedAt: number | null;
  answers: Record<string, LatestAnswer>;
}

/** Per-session counters of one rollup row (dimension + key) at the session's start. */
interface SessionContribution {
  dimension: string;
  key: string;
  sessions: number;
  conversions: number;
  completions: number;
  completionMs: number;
}

export function emptySession(sessionId: string): SessionState {
  return {
    sessionId,
    startedAt: null,
    startEventId: null,
    ...(Object.fromEntries(START_ATTRIBUTE_NAMES.map((name) => [name, null])) as Record<
      StartAttribute,
      null
    >),
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
        for (const name of START_ATTRIBUTE_NAMES) next[name] = START_ATTRIBUTES[name].of(f);
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
    ...START_ATTRIBUTE_NAMES,
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
 * The rollup rows a session adds at its start time, in every declared dimension; none while it is
 * pending. Derived from the declarations (session-definitions.ts), as is the SQL of rawSessionSums()
 * in rollups/raw-sessions.ts (a spec compares the two on random sessions).
 */
export function sessionContributions(state: SessionState): SessionContribution[] {
  if (state.startedAt === null) return [];
  const counted = outcomes(state);
  const contributions: SessionContribution[] = [];
  for (const [name, definition] of DECLARED_DIMENSIONS) {
    const { conversions, completions, completionMs } = countsOutcomes(definition) ? counted : NO_OUTCOMES;
    for (const [dimension, key] of keysOf(state, name, definition))
      contributions.push({ dimension, key, sessions: 1, conversions, completions, completionMs });
  }
  return contributions;
}

const NO_OUTCOMES = { conversions: 0, completions: 0, completionMs: 0 };

/** What a dimension that countsOutcomes counts besides the session: its conversion and completion. */
function outcomes(state: SessionState): typeof NO_OUTCOMES {
  const completed = state.completedAt !== null;
  return {
    conversions: state.convertedAt !== null ? 1 : 0,
    completions: completed ? 1 : 0,
    // A completion stamped before its session_start (clock skew) counts as immediate.
    completionMs: completed ? Math.max(0, (state.completedAt as number) - (state.startedAt as number)) : 0,
  };
}

/** The [dimension, key] pairs a started session counts under in one declared dimension. */
function keysOf(state: SessionState, name: string, definition: SessionDimension): [string, string][] {
  switch (definition.shape) {
    case 'segment':
      return [[name, segmentKey(FILTER_NAMES.map((filter) => state[filter]))]];
    case 'pages': {
      if (!definition.by) return state.pages.map((page) => [name, page]);
      const value = state[definition.by];
      return value ? state.pages.map((page) => [`${name}${value}`, page]) : [];
    }
    case 'answers':
      return Object.entries(state.answers).flatMap(([questionId, latest]): [string, string][] => {
        const distinct = [...new Set(latest.answers)];
        const dimension = `${name}${questionId}`;
        return definition.grouped
          ? [[dimension, distinct.join(GROUP_SEPARATOR)]]
          : distinct.map((answer) => [dimension, answer]);
      });
  }
}
