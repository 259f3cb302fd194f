import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { sqlPool } from '@app/core';
import { UTM_FIELDS } from './event-types';

/** What ingestion stored of one session, as a contact's meta takes it (docs/CAPTURING.md). */
export interface SessionSummary {
  /** The session's start (its earliest session_start); null while none arrived. */
  startedAt: Date | null;
  /** Its latest event. */
  lastSeenAt: Date | null;
  /** The first and the last page viewed. */
  firstPage: string | null;
  lastPage: string | null;
  completedAt: Date | null;
  /** The latest answer of each question, by question id. */
  answers: Record<string, string[]>;
  /** The UTM parameters of its start. */
  utm: Partial<Record<(typeof UTM_FIELDS)[number], string>>;
}

// A session's events are looked for from shortly before its start to a day after it: the events'
// key leads with the funnel, the type and the time, so the search stays within those partitions.
const SESSION_SQL = `
  WITH s AS (
    SELECT started_at, start_event_id, completed_at, answers FROM metric_sessions
    WHERE funnel_id = $1 AND session_id = $2 AND started_at IS NOT NULL
  ), views AS (
    SELECT e.type, e.key, e.occurred_at FROM metric_events e, s
    WHERE e.funnel_id = $1 AND e.type IN ('page_view', 'button_click', 'answer', 'conversion', 'completion')
      AND e.occurred_at >= s.started_at - interval '1 hour' AND e.occurred_at < s.started_at + interval '1 day'
      AND e.session_id = $2
  )
  SELECT s.started_at, s.completed_at, s.answers,
    (SELECT max(occurred_at) FROM views) AS last_seen_at,
    (SELECT key FROM views WHERE type = 'page_view' ORDER BY occurred_at, key LIMIT 1) AS first_page,
    (SELECT key FROM views WHERE type = 'page_view' ORDER BY occurred_at DESC, key DESC LIMIT 1) AS last_page,
    (SELECT e.payload -> 'utm' FROM metric_events e
     WHERE e.funnel_id = $1 AND e.type = 'session_start' AND e.occurred_at = s.started_at
       AND e.event_id = s.start_event_id) AS utm
  FROM s`;

/**
 * Reads a session as ingestion stored it, for the contact it converted into. Pages are read from
 * the page views (keyed by their slug), so the first and last follow the visit's order.
 */
@Injectable()
export class SessionSummaryReader {
  constructor(private readonly dataSource: DataSource) {}

  async read(funnelId: string, sessionId: string): Promise<SessionSummary | undefined> {
    const { rows } = await sqlPool(this.dataSource).query<{
      started_at: Date;
      completed_at: Date | null;
      last_seen_at: Date | null;
      first_page: string | null;
      last_page: string | null;
      utm: Record<string, string> | null;
      answers: Record<string, { answers: string[] }>;
    }>({ name: 'session_summary', text: SESSION_SQL, values: [funnelId, sessionId] });
    const row = rows[0];
    if (!row) return undefined;
    return {
      startedAt: row.started_at,
      lastSeenAt: row.last_seen_at ?? row.started_at,
      firstPage: row.first_page,
      lastPage: row.last_page,
      completedAt: row.completed_at,
      utm: row.utm ?? {},
      answers: Object.fromEntries(Object.entries(row.answers).map(([id, latest]) => [id, latest.answers])),
    };
  }
}
