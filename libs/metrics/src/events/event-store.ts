import { escapeLiteral } from 'pg';
import type { EventCounts, MessageChange, RollupRow, SessionCounts } from '../rollups/rollup-deltas';
import type {
  AnswerFields,
  ButtonClickFields,
  MessageFields,
  PageViewFields,
  TrackedEvent,
} from './event-types';
import { emptySession, SessionState } from './session-state';

// A batch is one transaction in two phases. First it stores its events, without any lock: the
// primary key counts each event once, even against a concurrent batch (which waits for the other
// to end). Then it takes the funnel's advisory lock and brings sessions and rollups in step:
// transactions of one funnel take turns there, so they read and write sessions without row locks
// or ordering concerns, while the next batch's events are already being stored. A batch costs six
// round trips (begin, insert, lock, read, write, commit; two more when it reports messages), each
// a named prepared statement planned once per connection. Rows travel as one JSON parameter read
// with json_to_recordset, times as epoch milliseconds: cheaper on both sides than arrays or dates.

/** Runs a named prepared statement in the batch's transaction and returns its rows. */
export type Sql = <T = Record<string, unknown>>(
  name: string,
  text: string,
  values: unknown[],
) => Promise<T[]>;

const at = (column: string) => `'epoch'::timestamptz + ${column} * interval '1 millisecond'`;
const millis = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * BEGIN and the funnel check in one round trip: a simple query, so the two UUIDs are written into
 * it (checked by the caller, escaped all the same). Its last result has one row when the funnel
 * exists (and belongs to the company, when one is given), none otherwise.
 *
 * Every statement of the transaction finds rows by their key, and only a probe of that key's index
 * keeps a batch's cost independent of the funnel's size. Each lookup is written so that no other
 * index applies, and sequential scans are ruled out for the transaction (SET LOCAL ends with it):
 * a prepared statement keeps the generic plan made on its sixth run, and while a table is small a
 * scan costs less than a probe, so that plan would later scan all of a funnel's sessions.
 */
export function beginFunnelTransaction(funnelId: string, companyId: string | null): string {
  const company = companyId === null ? 'NULL' : escapeLiteral(companyId);
  return `BEGIN; SET LOCAL enable_seqscan = off;
    SELECT 1 FROM funnels
    WHERE id = ${escapeLiteral(funnelId)}::uuid AND (${company}::uuid IS NULL OR company_id = ${company}::uuid)`;
}

export interface SessionRow {
  session_id: string;
  started_at: number | null;
  start_event_id: string | null;
  visitor_id: string | null;
  device: string | null;
  utm_source: string | null;
  ab_variant: string | null;
  pages: string[];
  converted_at: number | null;
  completed_at: number | null;
  answers: SessionState['answers'];
}

/** A session's columns, times as epoch milliseconds. */
export const SESSION_COLUMNS = `session_id, ${millis('started_at')} AS started_at, start_event_id, visitor_id,
  device, utm_source, ab_variant, pages, ${millis('converted_at')} AS converted_at,
  ${millis('completed_at')} AS completed_at, answers`;

export function sessionFromRow(r: SessionRow): SessionState {
  return {
    ...emptySession(r.session_id),
    startedAt: r.started_at,
    startEventId: r.start_event_id,
    visitorId: r.visitor_id,
    device: r.device,
    utmSource: r.utm_source,
    abVariant: r.ab_variant,
    pages: r.pages,
    convertedAt: r.converted_at,
    completedAt: r.completed_at,
    answers: r.answers,
  };
}

/**
 * One event as a json_to_recordset row; its fields are already JSON. Page views and clicks also
 * carry the columns that edge reads aggregate (k: key, l: button label, m: time on page).
 */
function eventJson(e: TrackedEvent): string {
  const row = `{"o":${e.occurredAt},"i":"${e.eventId}","s":${JSON.stringify(e.sessionId)},"t":"${e.type}","p":${e.fieldsJson}`;
  if (e.type === 'page_view') {
    const f = e.fields as PageViewFields;
    return `${row},"k":${JSON.stringify(f.pageSlug)}${f.timeOnPageMs === undefined ? '' : `,"m":${f.timeOnPageMs}`}}`;
  }
  if (e.type === 'button_click') {
    const f = e.fields as ButtonClickFields;
    return `${row},"k":${JSON.stringify(f.buttonId)}${f.buttonLabel === undefined ? '' : `,"l":${JSON.stringify(f.buttonLabel)}`}}`;
  }
  return `${row}}`;
}

/**
 * Stores the events that are new. Returns their ids, or `all` when none was a repeat of a stored
 * event (the usual case, which saves sending 500 ids back).
 */
export async function insertEvents(
  sql: Sql,
  funnelId: string,
  events: TrackedEvent[],
): Promise<Set<string> | 'all'> {
  // ON CONFLICT checks each event with one probe of the primary key.
  const [row] = await sql<{ repeats: boolean; inserted: string | null }>(
    'metrics_insert_events',
    `WITH inserted AS (
       INSERT INTO metric_events (funnel_id, occurred_at, event_id, session_id, type, payload, key, button_label, time_on_page_ms)
       SELECT $1, ${at('t.o')}, t.i, t.s, t.t, t.p, t.k, t.l, t.m
       FROM json_to_recordset($2::json) AS t(o bigint, i uuid, s text, t text, p json, k text, l text, m integer)
       ON CONFLICT DO NOTHING
       RETURNING event_id
     ), counted AS (SELECT count(*) <> $3 AS repeats FROM inserted)
     SELECT counted.repeats,
       CASE WHEN counted.repeats THEN (SELECT string_agg(event_id::text, ',') FROM inserted) END AS inserted
     FROM counted`,
    [funnelId, `[${events.map(eventJson).join(',')}]`, events.length],
  );
  return !row.repeats ? 'all' : new Set(row.inserted ? row.inserted.split(',') : []);
}

/**
 * Waits for the funnel's turn (its advisory lock, held to the end of the transaction), then reads
 * the sessions that exist among the given ones: two statements, so the read sees what the
 * previous holder committed.
 */
export async function lockFunnelAndReadSessions(
  sql: Sql,
  funnelId: string,
  sessionIds: string[],
): Promise<Map<string, SessionState>> {
  await sql('metrics_lock_funnel', 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [funnelId]);
  if (!sessionIds.length) return new Map();
  // Read through the primary key, the only index that serves a lookup by id: one probe each.
  const rows = await sql<SessionRow>(
    'metrics_read_sessions',
    `SELECT ${SESSION_COLUMNS} FROM metric_sessions WHERE funnel_id = $1 AND session_id = ANY($2::text[])`,
    [funnelId, sessionIds],
  );
  return new Map(rows.map((r) => [r.session_id, sessionFromRow(r)]));
}

export interface BatchWrites {
  sessions: SessionState[];
  eventRollups: RollupRow<EventCounts>[];
  sessionRollups: RollupRow<SessionCounts>[];
  questions: QuestionTitle[];
}

const LABEL_IS_NEWER = `EXCLUDED.label_at IS NOT NULL AND (r.label_at IS NULL OR EXCLUDED.label_at > r.label_at
  OR (EXCLUDED.label_at = r.label_at AND EXCLUDED.label COLLATE "C" > r.label COLLATE "C"))`;

/** Saves the changed sessions and adds the rollup increments and question titles, in one statement. */
export async function writeBatch(sql: Sql, funnelId: string, w: BatchWrites): Promise<void> {
  await sql(
    'metrics_write_batch',
    `WITH sessions AS (
       INSERT INTO metric_sessions AS s (funnel_id, session_id, started_at, start_event_id, visitor_id, device,
                                         utm_source, ab_variant, pages, converted_at, completed_at, answers)
       SELECT $1, v.session_id, ${at('v.started_at')}, v.start_event_id, v.visitor_id, v.device, v.utm_source,
              v.ab_variant, v.pages, ${at('v.converted_at')}, ${at('v.completed_at')}, v.answers
       FROM json_to_recordset($2::json) AS v(session_id text, started_at bigint, start_event_id uuid,
         visitor_id text, device text, utm_source text, ab_variant text, pages text[], converted_at bigint,
         completed_at bigint, answers jsonb)
       ON CONFLICT (funnel_id, session_id) DO UPDATE SET
         started_at = EXCLUDED.started_at, start_event_id = EXCLUDED.start_event_id, visitor_id = EXCLUDED.visitor_id,
         device = EXCLUDED.device, utm_source = EXCLUDED.utm_source, ab_variant = EXCLUDED.ab_variant,
         pages = EXCLUDED.pages, converted_at = EXCLUDED.converted_at, completed_at = EXCLUDED.completed_at,
         answers = EXCLUDED.answers
     ), event_rollups AS (
       INSERT INTO metric_event_rollups AS r (funnel_id, dimension, grain, bucket, key, events, timed, total_ms,
                                              label, label_at)
       SELECT $1, v.d, v.g, ${at('v.b')}, v.k, v.n, v.t, v.ms, v.l, ${at('v.la')}
       FROM json_to_recordset($3::json) AS v(d text, g int, b bigint, k text, n int, t int, ms bigint,
         l text, la bigint)
       ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
         events = r.events + EXCLUDED.events,
         timed = r.timed + EXCLUDED.timed,
         total_ms = r.total_ms + EXCLUDED.total_ms,
         label = CASE WHEN ${LABEL_IS_NEWER} THEN EXCLUDED.label ELSE r.label END,
         label_at = CASE WHEN ${LABEL_IS_NEWER} THEN EXCLUDED.label_at ELSE r.label_at END
     ), session_rollups AS (
       INSERT INTO metric_session_rollups AS r (funnel_id, dimension, grain, bucket, key, sessions, conversions,
                                                completions, completion_ms)
       SELECT $1, v.d, v.g, ${at('v.b')}, v.k, v.s, v.cv, v.cp, v.ms
       FROM json_to_recordset($4::json) AS v(d text, g int, b bigint, k text, s int, cv int, cp int, ms bigint)
       ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
         sessions = r.sessions + EXCLUDED.sessions,
         conversions = r.conversions + EXCLUDED.conversions,
         completions = r.completions + EXCLUDED.completions,
         completion_ms = r.completion_ms + EXCLUDED.completion_ms
     )
     INSERT INTO metric_questions AS q (funnel_id, question_id, title, title_at)
     SELECT $1, v.id, v.title, ${at('v.at')} FROM json_to_recordset($5::json) AS v(id text, title text, at bigint)
     ON CONFLICT (funnel_id, question_id) DO UPDATE SET
       title = CASE WHEN EXCLUDED.title_at > q.title_at THEN EXCLUDED.title ELSE q.title END,
       title_at = GREATEST(q.title_at, EXCLUDED.title_at)`,
    [
      funnelId,
      JSON.stringify(
        w.sessions.map((s) => ({
          session_id: s.sessionId,
          started_at: s.startedAt,
          start_event_id: s.startEventId,
          visitor_id: s.visitorId,
          device: s.device,
          utm_source: s.utmSource,
          ab_variant: s.abVariant,
          pages: s.pages,
          converted_at: s.convertedAt,
          completed_at: s.completedAt,
          answers: s.answers,
        })),
      ),
      JSON.stringify(
        w.eventRollups.map(({ dimension, grain, bucket, key, counts: c }) => ({
          d: dimension,
          g: grain,
          b: bucket,
          k: key,
          n: c.events,
          t: c.timed,
          ms: c.totalMs,
          l: c.label,
          la: c.labelAt,
        })),
      ),
      JSON.stringify(
        w.sessionRollups.map(({ dimension, grain, bucket, key, counts: c }) => ({
          d: dimension,
          g: grain,
          b: bucket,
          k: key,
          s: c.sessions,
          cv: c.conversions,
          cp: c.completions,
          ms: c.completionMs,
        })),
      ),
      JSON.stringify(w.questions),
    ],
  );
}

export interface QuestionTitle {
  id: string;
  title: string;
  /** When the title was seen, epoch ms: the latest wins. */
  at: number;
}

/** Each question's latest title among the events (insights show it; a question never answered is unknown). */
export function latestQuestionTitles(events: TrackedEvent[]): QuestionTitle[] {
  const latest = new Map<string, QuestionTitle>();
  for (const e of events) {
    if (e.type !== 'answer') continue;
    const f = e.fields as AnswerFields;
    const current = latest.get(f.questionId);
    if (
      !current ||
      e.occurredAt > current.at ||
      (e.occurredAt === current.at && f.questionTitle > current.title)
    ) {
      latest.set(f.questionId, { id: f.questionId, title: f.questionTitle, at: e.occurredAt });
    }
  }
  return [...latest.values()];
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
    // By primary keys only: the funnel is checked after the lookup by id (OFFSET 0 keeps the
    // condition out of it, where the funnel's index by send time would serve it too), and each
    // message's state is one probe (LATERAL).
    `SELECT c.id, c.created_at AS sent_at, m.delivered_at, m.opened_at
     FROM (SELECT id, funnel_id, created_at FROM contact_messages WHERE id = ANY($2::uuid[]) OFFSET 0) AS c
     LEFT JOIN LATERAL (
       SELECT delivered_at, opened_at FROM metric_messages WHERE funnel_id = $1 AND message_id = c.id LIMIT 1
     ) AS m ON true
     WHERE c.funnel_id = $1`,
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
