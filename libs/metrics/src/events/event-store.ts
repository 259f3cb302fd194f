import type { EntityManager } from 'typeorm';
import type { EventCounts, RollupRow, SessionCounts } from '../rollups/rollup-deltas';
import type { AnswerFields, MessageFields, TrackedEvent } from './event-types';
import { emptySession, SessionState } from './session-state';

// Every statement takes its rows in primary-key order (byte order, COLLATE "C"), so concurrent
// batches lock shared rows in the same order and cannot deadlock each other.

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const ms = (value: Date | null) => (value === null ? null : value.getTime());

/** Stores the events that are new; returns the ids of those (repeats of stored events are skipped). */
export async function insertEvents(
  manager: EntityManager,
  funnelId: string,
  events: TrackedEvent[],
): Promise<Set<string>> {
  const rows: { event_id: string }[] = await manager.query(
    `INSERT INTO metric_events (funnel_id, occurred_at, event_id, session_id, type, payload)
     SELECT $1, t.occurred_at, t.event_id, t.session_id, t.type, t.payload
     FROM unnest($2::timestamptz[], $3::uuid[], $4::text[], $5::text[], $6::jsonb[])
       AS t(occurred_at, event_id, session_id, type, payload)
     ORDER BY t.occurred_at, t.event_id
     ON CONFLICT DO NOTHING
     RETURNING event_id`,
    [
      funnelId,
      events.map((e) => iso(e.occurredAt)),
      events.map((e) => e.eventId),
      events.map((e) => e.sessionId),
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.fields)),
    ],
  );
  return new Set(rows.map((r) => r.event_id));
}

export interface SessionRow {
  session_id: string;
  started_at: Date | null;
  start_event_id: string | null;
  visitor_id: string | null;
  device: string | null;
  utm_source: string | null;
  ab_variant: string | null;
  pages: string[];
  converted_at: Date | null;
  completed_at: Date | null;
  answers: SessionState['answers'];
}

export const SESSION_COLUMNS = `session_id, started_at, start_event_id, visitor_id, device, utm_source, ab_variant,
  pages, converted_at, completed_at, answers`;

export function sessionFromRow(r: SessionRow): SessionState {
  return {
    ...emptySession(r.session_id),
    startedAt: ms(r.started_at),
    startEventId: r.start_event_id,
    visitorId: r.visitor_id,
    device: r.device,
    utmSource: r.utm_source,
    abVariant: r.ab_variant,
    pages: r.pages,
    convertedAt: ms(r.converted_at),
    completedAt: ms(r.completed_at),
    answers: r.answers,
  };
}

/** The sessions' current state, locked until the transaction ends (created empty when new). */
export async function lockSessions(
  manager: EntityManager,
  funnelId: string,
  sessionIds: string[],
): Promise<Map<string, SessionState>> {
  await manager.query(
    `INSERT INTO metric_sessions (funnel_id, session_id)
     SELECT $1, s FROM unnest($2::text[]) AS s ORDER BY s COLLATE "C"
     ON CONFLICT DO NOTHING`,
    [funnelId, sessionIds],
  );
  const rows: SessionRow[] = await manager.query(
    `SELECT ${SESSION_COLUMNS} FROM metric_sessions WHERE funnel_id = $1 AND session_id = ANY($2::text[])
     ORDER BY session_id COLLATE "C" FOR UPDATE`,
    [funnelId, sessionIds],
  );
  const states = new Map<string, SessionState>();
  for (const r of rows) states.set(r.session_id, sessionFromRow(r));
  return states;
}

export async function saveSessions(
  manager: EntityManager,
  funnelId: string,
  sessions: SessionState[],
): Promise<void> {
  if (!sessions.length) return;
  await manager.query(
    `UPDATE metric_sessions AS s SET
       started_at = v.started_at, start_event_id = v.start_event_id, visitor_id = v.visitor_id, device = v.device,
       utm_source = v.utm_source, ab_variant = v.ab_variant, pages = v.pages::text[],
       converted_at = v.converted_at, completed_at = v.completed_at, answers = v.answers
     FROM unnest($2::text[], $3::timestamptz[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                 $10::timestamptz[], $11::timestamptz[], $12::jsonb[])
       AS v(session_id, started_at, start_event_id, visitor_id, device, utm_source, ab_variant, pages,
            converted_at, completed_at, answers)
     WHERE s.funnel_id = $1 AND s.session_id = v.session_id`,
    [
      funnelId,
      sessions.map((s) => s.sessionId),
      sessions.map((s) => iso(s.startedAt)),
      sessions.map((s) => s.startEventId),
      sessions.map((s) => s.visitorId),
      sessions.map((s) => s.device),
      sessions.map((s) => s.utmSource),
      sessions.map((s) => s.abVariant),
      // Page slugs are letters, digits, - and _, so they need no quoting inside an array literal.
      sessions.map((s) => `{${s.pages.join(',')}}`),
      sessions.map((s) => iso(s.convertedAt)),
      sessions.map((s) => iso(s.completedAt)),
      sessions.map((s) => JSON.stringify(s.answers)),
    ],
  );
}

export async function addEventRollups(
  manager: EntityManager,
  funnelId: string,
  rows: RollupRow<EventCounts>[],
): Promise<void> {
  if (!rows.length) return;
  const newer = `EXCLUDED.label_at IS NOT NULL AND (r.label_at IS NULL OR EXCLUDED.label_at > r.label_at
    OR (EXCLUDED.label_at = r.label_at AND EXCLUDED.label COLLATE "C" > r.label COLLATE "C"))`;
  await manager.query(
    `INSERT INTO metric_event_rollups AS r (funnel_id, dimension, grain, bucket, key, events, timed, total_ms, label, label_at)
     SELECT $1, v.* FROM unnest($2::text[], $3::smallint[], $4::timestamptz[], $5::text[], $6::int[], $7::int[],
                               $8::bigint[], $9::text[], $10::timestamptz[])
       AS v(dimension, grain, bucket, key, events, timed, total_ms, label, label_at)
     ORDER BY v.dimension COLLATE "C", v.grain, v.bucket, v.key COLLATE "C"
     ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
       events = r.events + EXCLUDED.events,
       timed = r.timed + EXCLUDED.timed,
       total_ms = r.total_ms + EXCLUDED.total_ms,
       label = CASE WHEN ${newer} THEN EXCLUDED.label ELSE r.label END,
       label_at = CASE WHEN ${newer} THEN EXCLUDED.label_at ELSE r.label_at END`,
    [
      funnelId,
      rows.map((r) => r.dimension),
      rows.map((r) => r.grain),
      rows.map((r) => iso(r.bucket)),
      rows.map((r) => r.key),
      rows.map((r) => r.counts.events),
      rows.map((r) => r.counts.timed),
      rows.map((r) => r.counts.totalMs),
      rows.map((r) => r.counts.label),
      rows.map((r) => iso(r.counts.labelAt)),
    ],
  );
}

export async function addSessionRollups(
  manager: EntityManager,
  funnelId: string,
  rows: RollupRow<SessionCounts>[],
): Promise<void> {
  if (!rows.length) return;
  await manager.query(
    `INSERT INTO metric_session_rollups AS r (funnel_id, dimension, grain, bucket, key, sessions, conversions, completions, completion_ms)
     SELECT $1, v.* FROM unnest($2::text[], $3::smallint[], $4::timestamptz[], $5::text[], $6::int[], $7::int[],
                               $8::int[], $9::bigint[])
       AS v(dimension, grain, bucket, key, sessions, conversions, completions, completion_ms)
     ORDER BY v.dimension COLLATE "C", v.grain, v.bucket, v.key COLLATE "C"
     ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
       sessions = r.sessions + EXCLUDED.sessions,
       conversions = r.conversions + EXCLUDED.conversions,
       completions = r.completions + EXCLUDED.completions,
       completion_ms = r.completion_ms + EXCLUDED.completion_ms`,
    [
      funnelId,
      rows.map((r) => r.dimension),
      rows.map((r) => r.grain),
      rows.map((r) => iso(r.bucket)),
      rows.map((r) => r.key),
      rows.map((r) => r.counts.sessions),
      rows.map((r) => r.counts.conversions),
      rows.map((r) => r.counts.completions),
      rows.map((r) => r.counts.completionMs),
    ],
  );
}

/** Keeps each question's latest title (insights show it; a question never answered is unknown). */
export async function saveQuestions(
  manager: EntityManager,
  funnelId: string,
  events: TrackedEvent[],
): Promise<void> {
  const latest = new Map<string, { title: string; at: number }>();
  for (const e of events) {
    if (e.type !== 'answer') continue;
    const f = e.fields as AnswerFields;
    const current = latest.get(f.questionId);
    if (
      !current ||
      e.occurredAt > current.at ||
      (e.occurredAt === current.at && f.questionTitle > current.title)
    ) {
      latest.set(f.questionId, { title: f.questionTitle, at: e.occurredAt });
    }
  }
  if (!latest.size) return;
  const ids = [...latest.keys()];
  await manager.query(
    `INSERT INTO metric_questions AS q (funnel_id, question_id, title, title_at)
     SELECT $1, v.* FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS v(question_id, title, title_at)
     ORDER BY v.question_id COLLATE "C"
     ON CONFLICT (funnel_id, question_id) DO UPDATE SET
       title = CASE WHEN EXCLUDED.title_at > q.title_at THEN EXCLUDED.title ELSE q.title END,
       title_at = GREATEST(q.title_at, EXCLUDED.title_at)`,
    [funnelId, ids, ids.map((id) => latest.get(id)?.title), ids.map((id) => iso(latest.get(id)?.at ?? null))],
  );
}

/** Keeps the first delivery and the first opening of each message. */
export async function saveMessages(
  manager: EntityManager,
  funnelId: string,
  events: TrackedEvent[],
): Promise<void> {
  const messages = new Map<string, { delivered: number | null; opened: number | null }>();
  for (const e of events) {
    if (e.type !== 'message_delivered' && e.type !== 'message_opened') continue;
    const id = (e.fields as MessageFields).messageId;
    const m = messages.get(id) ?? { delivered: null, opened: null };
    const field = e.type === 'message_delivered' ? 'delivered' : 'opened';
    m[field] = m[field] === null ? e.occurredAt : Math.min(m[field] as number, e.occurredAt);
    messages.set(id, m);
  }
  if (!messages.size) return;
  const ids = [...messages.keys()];
  await manager.query(
    `INSERT INTO metric_messages AS m (funnel_id, message_id, delivered_at, opened_at)
     SELECT $1, v.* FROM unnest($2::uuid[], $3::timestamptz[], $4::timestamptz[]) AS v(message_id, delivered_at, opened_at)
     ORDER BY v.message_id
     ON CONFLICT (funnel_id, message_id) DO UPDATE SET
       delivered_at = LEAST(m.delivered_at, EXCLUDED.delivered_at),
       opened_at = LEAST(m.opened_at, EXCLUDED.opened_at)`,
    [
      funnelId,
      ids,
      ids.map((id) => iso(messages.get(id)?.delivered ?? null)),
      ids.map((id) => iso(messages.get(id)?.opened ?? null)),
    ],
  );
}
