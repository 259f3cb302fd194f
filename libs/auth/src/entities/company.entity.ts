import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The tenant: every workspace, funnel, contact and API key belongs to one company. */
@Entity('companies')
export class Company {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Billing subscription; MCP tokens carry it next to the company id. */
  @Column({ type: 'varchar', length: 100 })
  subscriptionId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
