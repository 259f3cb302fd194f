import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { SessionSegmentColumns } from './session-segment-columns';

/**
 * A session's step summary, written at ingestion, which step funnels read instead of events: the
 * session's start and filter attributes (copied from metric_sessions) and every time the session
 * reached a step key, as `marks` (see steps/step-marks.ts). One row per session with a step event
 * or a start; kept when raw event months are dropped, like the sessions. Read by funnel, sample
 * bucket and start (idx_metric_session_steps_sample, an expression index the migration
 * StepFunnelSample declares: steps/session-sample.ts).
 */
@Entity('metric_session_steps')
@Index('idx_metric_session_steps_sample', { synchronize: false })
export class MetricSessionSteps extends SessionSegmentColumns {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  sessionId: string;

  /** The session's start (metric_sessions.started_at) in milliseconds since 2000-01-01 UTC; null while pending. */
  @Column({ type: 'bigint', nullable: true })
  startedMs: string | null;

  /** Sorted: each step event as its key's id × 2^42 + its milliseconds since 2000-01-01 UTC. */
  @Column({ type: 'bigint', array: true, default: () => "'{}'" })
  marks: string[];
}
