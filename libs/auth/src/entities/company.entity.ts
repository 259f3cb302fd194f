import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const MAX_COMPANY_NAME_LENGTH = 200;
export const MAX_SUBSCRIPTION_ID_LENGTH = 100;

/** The tenant: every workspace, funnel, contact and API key belongs to one company. */
@Entity('companies')
export class Company {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: MAX_COMPANY_NAME_LENGTH })
  name: string;

  /** Billing subscription; MCP tokens carry it next to the company id. */
  @Column({ type: 'varchar', length: MAX_SUBSCRIPTION_ID_LENGTH })
  subscriptionId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
