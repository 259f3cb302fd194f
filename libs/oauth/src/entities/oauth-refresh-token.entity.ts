import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A refresh token this service handed a client (the identity provider's, passed through): only its
 * hash, and the client it belongs to. The refresh grant accepts it from that client alone, and
 * revocation deletes the row.
 */
@Entity('oauth_refresh_tokens')
export class OAuthRefreshToken {
  /** SHA-256 (hex) of the refresh token. */
  @PrimaryColumn({ type: 'char', length: 64 })
  tokenHash: string;

  @Column({ type: 'text' })
  clientId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
