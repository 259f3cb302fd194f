import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Relation,
} from 'typeorm';
import { Company } from './company.entity';

export const PERMISSIONS = [
  'crm:read',
  'crm:write',
  'metrics:read',
  'events:write',
  'webhooks:write',
] as const;
export type Permission = (typeof PERMISSIONS)[number];
export const MAX_API_KEY_NAME_LENGTH = 100;

/** An API key; only the lookup prefix and a SHA-256 hash of the secret are stored. */
@Entity('api_keys')
@Index('idx_api_keys_company', ['companyId'])
export class ApiKey {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  companyId: string;

  @ManyToOne(() => Company, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'company_id' })
  company?: Relation<Company>;

  @Column({ type: 'varchar', length: MAX_API_KEY_NAME_LENGTH, nullable: true })
  name: string | null;

  @Index('uq_api_keys_prefix', { unique: true })
  @Column({ type: 'varchar', length: 32 })
  prefix: string;

  @Column({ type: 'char', length: 64 })
  keyHash: string;

  @Column({ type: 'text', array: true })
  permissions: Permission[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  /** After this instant the key answers 401 `API key expired`; null: never expires. */
  @Column({ type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  /** Written at most once a minute per key, after the request it records. */
  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
