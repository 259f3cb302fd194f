import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An access token revoked before its expiry (RFC 7009): the bearer guard refuses it. Only the
 * token's hash is kept, and only until the token would have expired anyway.
 */
@Entity('oauth_revoked_access_tokens')
@Index('idx_oauth_revoked_access_tokens_expires', ['expiresAt'])
export class RevokedAccessToken {
  /** SHA-256 (hex) of the access token. */
  @PrimaryColumn({ type: 'char', length: 64 })
  tokenHash: string;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;
}
