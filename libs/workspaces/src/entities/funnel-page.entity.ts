import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Relation } from 'typeorm';
import { Funnel } from './funnel.entity';

/** One page of a funnel, in funnel order (`position` 0, 1, ...). */
@Entity('funnel_pages')
@Index('uq_funnel_pages_position', ['funnelId', 'position'], { unique: true })
@Index('uq_funnel_pages_slug', ['funnelId', 'slug'], { unique: true })
export class FunnelPage {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  funnelId: string;

  @ManyToOne(() => Funnel, (funnel) => funnel.pages, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'funnel_id' })
  funnel?: Relation<Funnel>;

  @Column({ type: 'int' })
  position: number;

  @Column({ type: 'varchar', length: 200 })
  slug: string;

  @Column({ type: 'varchar', length: 300 })
  title: string;
}
