import type { EventCounts, MessageChange, RollupRow, SessionCounts } from '../rollups/rollup-deltas';
import type { AnswerFields, MessageFields, TrackedEvent } from './event-types';
import { emptySession, SessionState } from './session-state';

// These statements run inside EventsService's transaction, which holds the funnel's advisory lock:
// one batch per funnel at a time, so they read and write without row locks or ordering concerns.
// Each is a named prepared statement: planned once per connection, not once per batch.

/** Runs a named prepared statement in the batch's transaction and returns its rows. */
export type Sql = <T = Record<string, unknown>>(
  name: string,
  text: string,
  values: unknown[],
) => Promise<T[]>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const ms = (value: Date | null) => (value === null ? null : value.getTime());

// Rows travel as one JSON parameter read with json_to_recordset: cheaper on both sides than one
// escaped array literal per column.

/** Stores the events that are new; returns the ids of those (repeats of stored events are skipped). */
export async function insertEvents(sql: Sql, funnelId: string, events: TrackedEvent[]): Promise<Set<string>> {
  // ON CONFLICT checks each row with one probe of the primary key, whatever the table's size.
  const rows: { event_id: string }[] = await sql(
    'metrics_insert_events',
    `INSERT INTO metric_events (funnel_id, occurred_at, event_id, session_id, type, payload)
     SELECT $1, 'epoch'::timestamptz + t.o * interval '1 millisecond', t.i, t.s, t.t, t.p
     FROM json_to_recordset($2::json) AS t(o bigint, i uuid, s text, t text, p json)
     ON CONFLICT DO NOTHING
     RETURNING event_id`,
    [
      funnelId,
      JSON.stringify(
        // Epoch milliseconds: exact, and cheaper than formatting a date per event.
        events.map((e) => ({ o: e.occurredAt, i: e.eventId, s: e.sessionId, t: e.type, p: e.fields })),
      ),
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

/** The sessions' current state (absent when new). */
export async function readSessions(
  sql: Sql,
  funnelId: string,
  sessionIds: string[],
): Promise<Map<string, SessionState>> {
  const rows: SessionRow[] = await sql(
    'metrics_read_sessions',
    `SELECT ${SESSION_COLUMNS} FROM metric_sessions WHERE funnel_id = $1 AND session_id = ANY($2::text[])`,
    [funnelId, sessionIds],
  );
  return new Map(rows.map((r) => [r.session_id, sessionFromRow(r)]));
}

export async function saveSessions(sql: Sql, funnelId: string, sessions: SessionState[]): Promise<void> {
  if (!sessions.length) return;
  await sql(
    'metrics_save_sessions',
    `INSERT INTO metric_sessions AS s (funnel_id, session_id, started_at, start_event_id, visitor_id, device, utm_source,
                                       ab_variant, pages, converted_at, completed_at, answers)
     SELECT $1, v.* FROM json_to_recordset($2::json) AS v(session_id text, started_at timestamptz, start_event_id uuid,
       visitor_id text, device text, utm_source text, ab_variant text, pages text[], converted_at timestamptz,
       completed_at timestamptz, answers jsonb)
     ON CONFLICT (funnel_id, session_id) DO UPDATE SET
       started_at = EXCLUDED.started_at, start_event_id = EXCLUDED.start_event_id, visitor_id = EXCLUDED.visitor_id,
       device = EXCLUDED.device, utm_source = EXCLUDED.utm_source, ab_variant = EXCLUDED.ab_variant,
       pages = EXCLUDED.pages, converted_at = EXCLUDED.converted_at, completed_at = EXCLUDED.completed_at,
       answers = EXCLUDED.answers`,
    [
      funnelId,
      JSON.stringify(
        sessions.map((s) => ({
          session_id: s.sessionId,
          started_at: iso(s.startedAt),
          start_event_id: s.startEventId,
          visitor_id: s.visitorId,
          device: s.device,
          utm_source: s.utmSource,
          ab_variant: s.abVariant,
          pages: s.pages,
          converted_at: iso(s.convertedAt),
          completed_at: iso(s.completedAt),
          answers: s.answers,
        })),
      ),
    ],
  );
}

export async function addEventRollups(
  sql: Sql,
  funnelId: string,
  rows: RollupRow<EventCounts>[],
): Promise<void> {
  if (!rows.length) return;
  const newer = `EXCLUDED.label_at IS NOT NULL AND (r.label_at IS NULL OR EXCLUDED.label_at > r.label_at
    OR (EXCLUDED.label_at = r.label_at AND EXCLUDED.label COLLATE "C" > r.label COLLATE "C"))`;
  await sql(
    'metrics_add_event_rollups',
    `INSERT INTO metric_event_rollups AS r (funnel_id, dimension, grain, bucket, key, events, timed, total_ms, label, label_at)
     SELECT $1, v.* FROM json_to_recordset($2::json) AS v(dimension text, grain smallint, bucket timestamptz, key text,
       events int, timed int, total_ms bigint, label text, label_at timestamptz)
     ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
       events = r.events + EXCLUDED.events,
       timed = r.timed + EXCLUDED.timed,
       total_ms = r.total_ms + EXCLUDED.total_ms,
       label = CASE WHEN ${newer} THEN EXCLUDED.label ELSE r.label END,
       label_at = CASE WHEN ${newer} THEN EXCLUDED.label_at ELSE r.label_at END`,
    [
      funnelId,
      JSON.stringify(
        rows.map((r) => ({
          dimension: r.dimension,
          grain: r.grain,
          bucket: iso(r.bucket),
          key: r.key,
          events: r.counts.events,
          timed: r.counts.timed,
          total_ms: r.counts.totalMs,
          label: r.counts.label,
          label_at: iso(r.counts.labelAt),
        })),
      ),
    ],
  );
}

export async function addSessionRollups(
  sql: Sql,
  funnelId: string,
  rows: RollupRow<SessionCounts>[],
): Promise<void> {
  if (!rows.length) return;
  await sql(
    'metrics_add_session_rollups',
    `INSERT INTO metric_session_rollups AS r (funnel_id, dimension, grain, bucket, key, sessions, conversions, completions, completion_ms)
     SELECT $1, v.* FROM json_to_recordset($2::json) AS v(dimension text, grain smallint, bucket timestamptz, key text,
       sessions int, conversions int, completions int, completion_ms bigint)
     ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
       sessions = r.sessions + EXCLUDED.sessions,
       conversions = r.conversions + EXCLUDED.conversions,
       completions = r.completions + EXCLUDED.completions,
       completion_ms = r.completion_ms + EXCLUDED.completion_ms`,
    [
      funnelId,
      JSON.stringify(
        rows.map((r) => ({
          dimension: r.dimension,
          grain: r.grain,
          bucket: iso(r.bucket),
          key: r.key,
          sessions: r.counts.sessions,
          conversions: r.counts.conversions,
          completions: r.counts.completions,
          completion_ms: r.counts.completionMs,
        })),
      ),
    ],
  );
}

/** Keeps each question's latest title (insights show it; a question never answered is unknown). */
export async function saveQuestions(sql: Sql, funnelId: string, events: TrackedEvent[]): Promise<void> {
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
  await sql(
    'metrics_save_questions',
    `INSERT INTO metric_questions AS q (funnel_id, question_id, title, title_at)
     SELECT $1, v.* FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS v(question_id, title, title_at)
     ON CONFLICT (funnel_id, question_id) DO UPDATE SET
       title = CASE WHEN EXCLUDED.title_at > q.title_at THEN EXCLUDED.title ELSE q.title END,
       title_at = GREATEST(q.title_at, EXCLUDED.title_at)`,
    [funnelId, ids, ids.map((id) => latest.get(id)?.title), ids.map((id) => iso(latest.get(id)?.at ?? null))],
  );
}

/**
 * Keeps the first delivery and the first opening of each message, and returns the messages that
 * became delivered or opened with their send time (contact_messages.created_at): the message
 * rollups count them there. An opening implies a delivery. Events for a message that is not a
 * contact message of this funnel are kept but counted nowhere.
 */
export async function saveMessages(
  sql: Sql,
  funnelId: string,
  events: TrackedEvent[],
): Promise<MessageChange[]> {
  const reported = new Map<string, { delivered: number | null; opened: number | null }>();
  for (const e of events) {
    if (e.type !== 'message_delivered' && e.type !== 'message_opened') continue;
    const id = (e.fields as MessageFields).messageId;
    const m = reported.get(id) ?? { delivered: null, opened: null };
    const field = e.type === 'message_delivered' ? 'delivered' : 'opened';
    m[field] = m[field] === null ? e.occurredAt : Math.min(m[field] as number, e.occurredAt);
    reported.set(id, m);
  }
  if (!reported.size) return [];
  const ids = [...reported.keys()];
  const known: { id: string; sent_at: Date; delivered_at: Date | null; opened_at: Date | null }[] = await sql(
    'metrics_read_messages',
    `SELECT c.id, c.created_at AS sent_at, m.delivered_at, m.opened_at
     FROM contact_messages c
     LEFT JOIN metric_messages m ON m.funnel_id = c.funnel_id AND m.message_id = c.id
     WHERE c.funnel_id = $1 AND c.id = ANY($2::uuid[])`,
    [funnelId, ids],
  );
  await sql(
    'metrics_save_messages',
    `INSERT INTO metric_messages AS m (funnel_id, message_id, delivered_at, opened_at)
     SELECT $1, v.* FROM unnest($2::uuid[], $3::timestamptz[], $4::timestamptz[]) AS v(message_id, delivered_at, opened_at)
     ON CONFLICT (funnel_id, message_id) DO UPDATE SET
       delivered_at = LEAST(m.delivered_at, EXCLUDED.delivered_at),
       opened_at = LEAST(m.opened_at, EXCLUDED.opened_at)`,
    [
      funnelId,
      ids,
      ids.map((id) => iso(reported.get(id)?.delivered ?? null)),
      ids.map((id) => iso(reported.get(id)?.opened ?? null)),
    ],
  );
  const changes: MessageChange[] = [];
  for (const k of known) {
    const now = reported.get(k.id) as { delivered: number | null; opened: number | null };
    const wasOpened = k.opened_at !== null;
    const wasDelivered = k.delivered_at !== null || wasOpened;
    const opened = !wasOpened && now.opened !== null;
    const delivered = !wasDelivered && (now.delivered !== null || now.opened !== null);
    if (opened || delivered) changes.push({ sentAt: k.sent_at.getTime(), delivered, opened });
  }
  return changes;
}
