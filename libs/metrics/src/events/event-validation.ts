import { hash } from 'node:crypto';
import { parseIso8601, ValidationError } from '@app/core';
import { isObject, oneOf, Problems, text } from './event-field-checks';
import { EVENT_LIMITS, READERS } from './event-readers';
import { EVENT_TYPES, EventFields, EventType, MAX_EVENTS_PER_BATCH, TrackedEvent } from './event-types';

const COMMON = ['type', 'sessionId', 'occurredAt'];
// At most this many problems are listed; a broken client tends to repeat one mistake 1000 times.
const MAX_DETAILS = 20;

/** The members that are set, in reader order (an absent optional member is left out, not null). */
function withoutUndefined(fields: EventFields): EventFields {
  const out: Record<string, unknown> = {};
  const members = fields as Record<string, unknown>;
  // Own members only: the readers build plain objects. Same order as Object.entries.
  for (const key in members) if (members[key] !== undefined) out[key] = members[key];
  return out as EventFields;
}

/**
 * A content hash as a UUID: the same event (session, type, time and content) always gets the same
 * id. The hashed text is `JSON.stringify([type, sessionId, occurredAt, fields])`, built from the
 * fields' JSON the event keeps anyway.
 */
function eventIdOf(type: string, sessionId: string, occurredAt: number, fieldsJson: string): string {
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
