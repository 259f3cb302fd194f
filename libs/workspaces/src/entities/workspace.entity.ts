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
import { Company } from '@app/auth';
import { Funnel } from './funnel.entity';

export const MAX_WORKSPACE_NAME_LENGTH = 200;

/** Groups a company's funnels ("campaigns" in the workspace listing). */
@Entity('workspaces')
@Index('idx_workspaces_company', ['companyId', 'createdAt'])
export class Workspace {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  companyId: string;

  @ManyToOne(() => Company, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'company_id' })
  company?: Relation<Company>;

  @Column({ type: 'varchar', length: MAX_WORKSPACE_NAME_LENGTH })
  name: string;

  @OneToMany(() => Funnel, (funnel) => funnel.workspace)
  funnels?: Relation<Funnel[]>;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
