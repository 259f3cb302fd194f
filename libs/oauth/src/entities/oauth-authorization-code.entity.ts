import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An authorization code this service gave a client: single use, short-lived, bound to the client,
 * its redirect URI and its PKCE challenge. The identity provider's tokens wait here sealed under a
 * key derived from the code, of which only the hash is kept.
 */
@Entity('oauth_authorization_codes')
@Index('idx_oauth_authorization_codes_expires', ['expiresAt'])
export class OAuthAuthorizationCode {
  /** SHA-256 (hex) of the code. */
  @PrimaryColumn({ type: 'char', length: 64 })
  codeHash: string;

  @Column({ type: 'text' })
  clientId: string;

  @Column({ type: 'text' })
  redirectUri: string;

  @Column({ type: 'varchar', length: 128 })
  codeChallenge: string;

  /** The provider's token response, AES-256-GCM under a key derived from the code. */
  @Column({ type: 'text' })
  sealedTokens: string;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
