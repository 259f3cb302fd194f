import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { SessionSegmentColumns } from './session-segment-columns';
import type { LatestAnswer } from '../events/session-state';

/**
 * One visit's state. Session-scoped facts (pages viewed, conversion, completion, latest answers)
 * are attributed to `started_at`, the earliest session_start; while it is null the session is
 * pending and counted nowhere.
 */
@Entity('metric_sessions')
// Partial: reads by start time never want pending sessions, and a lookup by (funnel, session id)
// then has only the primary key to use, whatever the planner estimates (see event-store.ts).
@Index('idx_metric_sessions_started', ['funnelId', 'startedAt'], { where: '"started_at" IS NOT NULL' })
export class MetricSession extends SessionSegmentColumns {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  sessionId: string;

  @Column({ type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  /** The session_start that set the attributes; breaks ties between equal start times. */
  @Column({ type: 'uuid', nullable: true })
  startEventId: string | null;

  @Column({ type: 'varchar', length: 128, nullable: true })
  visitorId: string | null;

  /** Distinct page slugs viewed, sorted. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  pages: string[];

  @Column({ type: 'timestamptz', nullable: true })
  convertedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  /** Latest answer per question id. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  answers: Record<string, LatestAnswer>;
}
