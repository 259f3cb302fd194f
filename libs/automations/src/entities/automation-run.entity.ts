import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Relation,
  UpdateDateColumn,
} from 'typeorm';
import { Automation } from './automation.entity';

// `skipped`: ended without sending, the reason in lastError (an email to a contact without an address).
export const RUN_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export type RunEvent = 'contact.created' | 'contact.field_changed' | 'contact.deleted';

/** The JSON a run delivers, frozen when the change was committed. */
export interface RunPayload {
  event: RunEvent;
  funnelId: string;
  /** The Contact JSON; for `contact.deleted` only `{id}`. */
  contact: Record<string, unknown>;
  change: { fieldName: string; previousValue: unknown; value: unknown } | null;
  occurredAt: string;
}

/**
 * One execution of an automation for one contact change: the transactional outbox. It is written
 * in the transaction of the change and delivered later by the worker.
 */
@Entity('automation_runs')
// The worker's claim query: due pending runs and running runs whose lease expired.
@Index('idx_automation_runs_due', ['nextAttemptAt'], {
  where: "status IN ('pending', 'running')",
})
@Index('idx_automation_runs_funnel', ['funnelId', 'createdAt'])
@Index('idx_automation_runs_automation', ['automationId'])
@Index('idx_automation_runs_contact', ['contactId'])
export class AutomationRun {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  automationId: string;

  @ManyToOne(() => Automation, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'funnel_id', referencedColumnName: 'funnelId' },
    { name: 'automation_id', referencedColumnName: 'id' },
  ])
  automation?: Relation<Automation>;

  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  // No foreign key: a contact.deleted run outlives its contact. Erasing a contact removes its
  // other runs (their payloads hold its personal data) in the same transaction.
  @Column({ type: 'uuid' })
  contactId: string;

  @Column({ type: 'varchar', length: 32 })
  event: RunEvent;

  @Column({ type: 'jsonb' })
  payload: RunPayload;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status: RunStatus;

  /** Delivery attempts started so far (a claim counts, even if its worker died). */
  @Column({ type: 'int', default: 0 })
  attempts: number;

  /**
   * When the run is next due: for a pending run the (retry) time, for a running run the end of its
   * lease, after which another worker may take it over.
   */
  @Column({ type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt: Date;

  /** The worker holding the lease; completion only counts when it still holds it. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  lockedBy: string | null;

  @Column({ type: 'text', nullable: true })
  lastError: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
