import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, Relation } from 'typeorm';
import { Funnel } from '@app/workspaces';

/**
 * How many contacts a funnel has, so a list page does not count a large funnel on every request:
 * the sum of the funnel's rows. Kept by statement-level triggers on `contacts` (see the
 * ContactCountSlots migration), inside the transaction of every insert and delete, whoever writes
 * the rows. A writer adds to the slot of its database connection, so writers of one funnel on
 * different connections do not wait for each other's commit.
 */
@Entity('funnel_contact_counts')
export class FunnelContactCount {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @PrimaryColumn({ type: 'smallint' })
  slot: number;

  @ManyToOne(() => Funnel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'funnel_id' })
  funnel?: Relation<Funnel>;

  @Column({ type: 'bigint', default: 0 })
  contactCount: string;
}
