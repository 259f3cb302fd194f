import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An authorization waiting on the consent page: the user signed in at the identity provider, but
 * has not yet approved this client. The provider's tokens wait sealed under a key derived from the
 * page's consent token, of which (as of the browser's cookie) only the hash is kept.
 */
@Entity('oauth_pending_consents')
@Index('idx_oauth_pending_consents_expires', ['expiresAt'])
export class OAuthPendingConsent {
  /** SHA-256 (hex) of the consent token in the page's form. */
  @PrimaryColumn({ type: 'char', length: 64 })
  tokenHash: string;

  /** SHA-256 (hex) of the value of the browser's consent cookie (SameSite=Strict). */
  @Column({ type: 'char', length: 64 })
  browserHash: string;

  @Column({ type: 'text' })
  subject: string;

  @Column({ type: 'text' })
  clientId: string;

  @Column({ type: 'text' })
  redirectUri: string;

  @Column({ type: 'text', nullable: true })
  clientState: string | null;

  @Column({ type: 'varchar', length: 128 })
  codeChallenge: string;

  @Column({ type: 'text' })
  scope: string;

  @Column({ type: 'text' })
  issuer: string;

  /** The provider's token response, AES-256-GCM under a key derived from the consent token. */
  @Column({ type: 'text' })
  sealedTokens: string;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
