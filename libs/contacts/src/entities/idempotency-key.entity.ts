import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  Relation,
} from 'typeorm';
import { Company } from '@app/auth';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * The remembered outcome of a POST carrying an `Idempotency-Key`: keys are scoped per company,
 * and a retry with the same key and request gets `responseBody` back instead of a second contact.
 */
@Entity('idempotency_keys')
// The sweep of a company's expired keys (pruneExpiredKeys).
@Index('idx_idempotency_keys_company_created', ['companyId', 'createdAt'])
export class IdempotencyKey {
  @PrimaryColumn({ type: 'uuid' })
  companyId: string;

  @ManyToOne(() => Company, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'company_id' })
  company?: Relation<Company>;

  @PrimaryColumn({ type: 'varchar', length: MAX_IDEMPOTENCY_KEY_LENGTH })
  key: string;

  /** SHA-256 of the route and the canonical request body: a different request reusing the key is refused. */
  @Column({ type: 'char', length: 64 })
  fingerprint: string;

  @Column({ type: 'smallint' })
  responseStatus: number;

  @Column({ type: 'jsonb' })
  responseBody: unknown;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
