import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, Relation } from 'typeorm';
import { Funnel } from '@app/workspaces';

/**
 * How many contacts a funnel has, so a list page does not count a large funnel on every request.
 * Kept by statement-level triggers on `contacts` (see the AddContactCountsAndIdempotency
 * migration), inside the transaction of every insert and delete, whoever writes the rows.
 */
@Entity('funnel_contact_counts')
export class FunnelContactCount {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @OneToOne(() => Funnel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'funnel_id' })
  funnel?: Relation<Funnel>;

  @Column({ type: 'bigint', default: 0 })
  contactCount: string;
}
