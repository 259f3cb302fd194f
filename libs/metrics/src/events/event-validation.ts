import { hash } from 'node:crypto';
import { isStorableText, isUuid, parseIso8601, UNSTORABLE_TEXT_RULE, ValidationError } from '@app/core';
import {
  AB_VARIANTS,
  DEVICES,
  EVENT_TYPES,
  EventFields,
  EventType,
  MAX_EVENTS_PER_BATCH,
  TrackedEvent,
  UTM_FIELDS,
} from './event-types';

export const EVENT_LIMITS = {
  idLength: 128,
  textLength: 200,
  titleLength: 500,
  answers: 20,
  answersTotalLength: 500,
  maxTimeOnPageMs: 86_400_000,
  earliest: Date.UTC(2000, 0, 1),
  /** Clocks drift: an event may be stamped up to a day ahead of the server. */
  futureToleranceMs: 86_400_000,
} as const;

const SLUG = /^[a-z0-9][a-z0-9-_]{0,199}$/i;
const QUESTION_ID = /^question_\d{1,9}$/;
const COMMON = ['type', 'sessionId', 'occurredAt'];
// At most this many problems are listed; a broken client tends to repeat one mistake 1000 times.
const MAX_DETAILS = 20;

type Problems = string[];
type Reader = (raw: Record<string, unknown>, at: string, problems: Problems) => EventFields;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function text(
  raw: Record<string, unknown>,
  name: string,
  at: string,
  problems: Problems,
  max: number,
  required = true,
) {
  const value = raw[name];
  if (value === undefined) {
    if (required) problems.push(`${at}.${name} is required`);
    return undefined;
  }
  if (typeof value !== 'string' || value.length < 1 || value.length > max) {
    problems.push(`${at}.${name} must be a string of 1 to ${max} characters`);
    return undefined;
  }
  if (!isStorableText(value)) {
    problems.push(`${at}.${name} ${UNSTORABLE_TEXT_RULE}`);
    return undefined;
  }
  return value;
}

function oneOf<T extends string>(
  raw: Record<string, unknown>,
  name: string,
  at: string,
  problems: Problems,
  allowed: readonly T[],
  required: boolean,
) {
  const value = raw[name];
  if (value === undefined) {
    if (required) problems.push(`${at}.${name} is required`);
    return undefined;
  }
  if (!allowed.includes(value as T)) {
    problems.push(`${at}.${name} must be one of ${allowed.join(', ')}`);
    return undefined;
  }
  return value as T;
}

function pattern(
  raw: Record<string, unknown>,
  name: string,
  at: string,
  problems: Problems,
  re: RegExp,
  rule: string,
) {
  const value = raw[name];
  if (value === undefined) problems.push(`${at}.${name} is required`);
  else if (typeof value !== 'string' || !re.test(value)) problems.push(`${at}.${name} must be ${rule}`);
  else return value;
  return undefined;
}

function uuid(raw: Record<string, unknown>, name: string, at: string, problems: Problems, required: boolean) {
  const value = raw[name];
  if (value === undefined) {
    if (required) problems.push(`${at}.${name} is required`);
    return undefined;
  }
  if (!isUuid(value)) problems.push(`${at}.${name} must be a UUID`);
  return isUuid(value) ? value.toLowerCase() : undefined;
}

// Each reader returns the members in a fixed order; undefined members are dropped by JSON.
const READERS: Record<EventType, { fields: string[]; read: Reader }> = {
  session_start: {
    fields: ['visitorId', 'device', 'utm', 'abVariant'],
    read: (raw, at, problems) => {
      const visitorId = text(raw, 'visitorId', at, problems, EVENT_LIMITS.idLength);
      const device = oneOf(raw, 'device', at, problems, DEVICES, true);
      let utm: Record<string, string> | undefined;
      if (raw.utm !== undefined) {
        if (!isObject(raw.utm)) problems.push(`${at}.utm must be an object`);
        else {
          for (const key of Object.keys(raw.utm)) {
            if (!UTM_FIELDS.includes(key as never))
              problems.push(`${at}.utm.${key} is not a recognised field`);
          }
          const present = UTM_FIELDS.filter(
            (f) => raw.utm && (raw.utm as Record<string, unknown>)[f] !== undefined,
          );
          utm = {};
          for (const f of present) {
            const value = text(raw.utm, f, `${at}.utm`, problems, EVENT_LIMITS.textLength);
            if (value !== undefined) utm[f] = value;
          }
          if (!present.length) utm = undefined;
        }
      }
      const abVariant = oneOf(raw, 'abVariant', at, problems, AB_VARIANTS, false);
      return { visitorId: visitorId as string, device: device as never, utm, abVariant };
    },
  },
  page_view: {
    fields: ['pageSlug', 'timeOnPageMs'],
    read: (raw, at, problems) => {
      const pageSlug = pattern(
        raw,
        'pageSlug',
        at,
        problems,
        SLUG,
        'a page slug (letters, digits, - and _; at most 200)',
      );
      const ms = raw.timeOnPageMs;
      if (
        ms !== undefined &&
        !(Number.isInteger(ms) && (ms as number) >= 0 && (ms as number) <= EVENT_LIMITS.maxTimeOnPageMs)
      ) {
        problems.push(`${at}.timeOnPageMs must be an integer from 0 to ${EVENT_LIMITS.maxTimeOnPageMs}`);
      }
      return { pageSlug: pageSlug as string, timeOnPageMs: ms as number | undefined };
    },
  },
  button_click: {
    fields: ['pageSlug', 'buttonId', 'buttonLabel'],
    read: (raw, at, problems) => ({
      pageSlug: pattern(
        raw,
        'pageSlug',
        at,
        problems,
        SLUG,
        'a page slug (letters, digits, - and _; at most 200)',
      ) as string,
      buttonId: text(raw, 'buttonId', at, problems, EVENT_LIMITS.textLength) as string,
      buttonLabel: text(raw, 'buttonLabel', at, problems, EVENT_LIMITS.textLength, false),
    }),
  },
  answer: {
    fields: ['questionId', 'questionTitle', 'answers'],
    read: (raw, at, problems) => {
      const questionId = pattern(raw, 'questionId', at, problems, QUESTION_ID, 'question_<n>');
      const questionTitle = text(raw, 'questionTitle', at, problems, EVENT_LIMITS.titleLength);
      const answers = raw.answers;
      const valid =
        Array.isArray(answers) &&
        answers.length >= 1 &&
        answers.length <= EVENT_LIMITS.answers &&
        answers.every((a) => typeof a === 'string' && a.length >= 1 && a.length <= EVENT_LIMITS.textLength) &&
        (answers as string[]).join('').length <= EVENT_LIMITS.answersTotalLength;
      if (answers === undefined) problems.push(`${at}.answers is required`);
      else if (!valid) {
        problems.push(
          `${at}.answers must be 1 to ${EVENT_LIMITS.answers} strings of 1 to ${EVENT_LIMITS.textLength} characters, ${EVENT_LIMITS.answersTotalLength} characters in total`,
        );
      } else if ((answers as string[]).some((a) => !isStorableText(a))) {
        problems.push(`${at}.answers ${UNSTORABLE_TEXT_RULE}`);
      }
      return {
        questionId: questionId as string,
        questionTitle: questionTitle as string,
        answers: answers as string[],
      };
    },
  },
  conversion: {
    fields: ['contactId'],
    read: (raw, at, problems) => ({ contactId: uuid(raw, 'contactId', at, problems, false) }),
  },
  completion: { fields: [], read: () => ({}) },
  message_delivered: {
    fields: ['messageId'],
    read: (raw, at, problems) => ({ messageId: uuid(raw, 'messageId', at, problems, true) as string }),
  },
  message_opened: {
    fields: ['messageId'],
    read: (raw, at, problems) => ({ messageId: uuid(raw, 'messageId', at, problems, true) as string }),
  },
};

/** The members that are set, in reader order (an absent optional member is left out, not null). */
function withoutUndefined(fields: EventFields): EventFields {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as EventFields;
}

/**
 * A content hash as a UUID: the same event (session, type, time and content) always gets the same
 * id. The hashed text is `JSON.stringify([type, sessionId, occurredAt, fields])`, built from the
 * fields' JSON the event keeps anyway.
 */
export function eventIdOf(type: string, sessionId: string, occurredAt: number, fieldsJson: string): string {
  const content = `[${JSON.stringify(type)},${JSON.stringify(sessionId)},${occurredAt},${fieldsJson}]`;
  const hex = hash('sha256', content, 'hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** A validated event with its content id (`fields` in canonical member order). */
export function trackedEvent(
  type: EventType,
  sessionId: string,
  occurredAt: number,
  fields: EventFields,
): TrackedEvent {
  const fieldsJson = JSON.stringify(fields);
  return {
    eventId: eventIdOf(type, sessionId, occurredAt, fieldsJson),
    type,
    sessionId,
    occurredAt,
    fields,
    fieldsJson,
  };
}

function readEvent(raw: unknown, index: number, now: number, problems: Problems): TrackedEvent | undefined {
  const at = `events[${index}]`;
  if (!isObject(raw)) {
    problems.push(`${at} must be an object`);
    return undefined;
  }
  const before = problems.length;
  const type = oneOf(raw, 'type', at, problems, EVENT_TYPES, true);
  const sessionId = text(raw, 'sessionId', at, problems, EVENT_LIMITS.idLength);
  let occurredAt: number | undefined;
  if (raw.occurredAt === undefined) problems.push(`${at}.occurredAt is required`);
  else {
    occurredAt =
      typeof raw.occurredAt === 'string' ? parseIso8601(raw.occurredAt, { zoneRequired: true }) : undefined;
    if (occurredAt === undefined) {
      problems.push(
        `${at}.occurredAt must be an ISO 8601 date-time with a time zone (e.g. 2025-01-31T09:30:00Z)`,
      );
    } else if (occurredAt < EVENT_LIMITS.earliest || occurredAt > now + EVENT_LIMITS.futureToleranceMs) {
      problems.push(`${at}.occurredAt must lie between 2000-01-01 and one day from now`);
    }
  }
  if (!type) return undefined;
  const reader = READERS[type];
  for (const key of Object.keys(raw)) {
    if (!COMMON.includes(key) && !reader.fields.includes(key))
      problems.push(`${at}.${key} is not a recognised field of ${type}`);
  }
  const fields = reader.read(raw, at, problems);
  if (problems.length > before) return undefined;
  return trackedEvent(type, sessionId as string, occurredAt as number, withoutUndefined(fields));
}

/**
 * Validates a whole batch `{"events": [...]}`: any problem rejects all of it, with details naming
 * the event index. Returns the events in their canonical form.
 */
export function parseEventBatch(body: unknown, now = Date.now()): TrackedEvent[] {
  const problems: Problems = [];
  if (!isObject(body)) throw new ValidationError('the request body must be a JSON object {"events": [...]}');
  for (const key of Object.keys(body))
    if (key !== 'events') problems.push(`${key} is not a recognised field`);
  const raw = body.events;
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > MAX_EVENTS_PER_BATCH) {
    problems.unshift(`events must be an array of 1 to ${MAX_EVENTS_PER_BATCH} events`);
    throw new ValidationError(problems[0], problems);
  }
  const events = raw.map((event, index) => readEvent(event, index, now, problems));
  if (problems.length) {
    const details = problems.slice(0, MAX_DETAILS);
    if (problems.length > MAX_DETAILS) details.push(`... and ${problems.length - MAX_DETAILS} more problems`);
    throw new ValidationError(details[0], details);
  }
  return events as TrackedEvent[];
}
