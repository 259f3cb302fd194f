import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
  Relation,
} from 'typeorm';
import { FunnelPage } from './funnel-page.entity';
import { Workspace } from './workspace.entity';

export const FUNNEL_STATUSES = ['online', 'offline'] as const;
export type FunnelStatus = (typeof FUNNEL_STATUSES)[number];
export const DEFAULT_FUNNEL_STATUS: FunnelStatus = 'offline';
/** A new funnel's contact statuses unless it names its own; the first is a new contact's default. */
export const DEFAULT_CONTACT_STATUSES = ['lead', 'converted'] as const;
/** A contact status name of a funnel. */
export const CONTACT_STATUS_NAME = /^[A-Za-z0-9_-]{1,100}$/;
export const MAX_FUNNEL_NAME_LENGTH = 200;

/** A funnel (a "campaign" in the workspace listing); its id is the funnelId of every REST path. */
@Entity('funnels')
@Index('idx_funnels_workspace', ['workspaceId', 'createdAt'])
@Index('idx_funnels_company', ['companyId', 'id'])
export class Funnel {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  workspaceId: string;

  @ManyToOne(() => Workspace, (workspace) => workspace.funnels, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id' })
  workspace?: Relation<Workspace>;

  /** Copied from the workspace so every tenant check is one indexed lookup. */
  @Column({ type: 'uuid' })
  companyId: string;

  @Column({ type: 'varchar', length: MAX_FUNNEL_NAME_LENGTH })
  name: string;

  @Column({ type: 'varchar', length: 16, default: 'offline' })
  status: FunnelStatus;

  /** Contact statuses configured for this funnel, first one is the default. */
  @Column({ type: 'text', array: true, default: () => "'{lead,converted}'" })
  contactStatuses: string[];

  /** Browser collection (tracker, public collect and submissions routes): on only with an allowed origin. */
  @Column({ type: 'boolean', default: false })
  collectionEnabled: boolean;

  /** The origins (`https://host[:port]`) whose pages may send to the public routes. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  collectionOrigins: string[];

  @OneToMany(() => FunnelPage, (page) => page.funnel)
  pages?: Relation<FunnelPage[]>;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
