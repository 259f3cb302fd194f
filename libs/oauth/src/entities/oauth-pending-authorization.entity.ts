import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A client's authorization request while the user is at the identity provider, found again by the
 * state this service sent there (only its hash is kept). Deleted when the callback arrives.
 */
@Entity('oauth_pending_authorizations')
@Index('idx_oauth_pending_authorizations_expires', ['expiresAt'])
export class OAuthPendingAuthorization {
  /** SHA-256 (hex) of the state sent to the identity provider. */
  @PrimaryColumn({ type: 'char', length: 64 })
  stateHash: string;

  /** A registered client's id or a client metadata document URL. */
  @Column({ type: 'text' })
  clientId: string;

  @Column({ type: 'text' })
  redirectUri: string;

  /** The client's own `state`, echoed back to it. */
  @Column({ type: 'text', nullable: true })
  clientState: string | null;

  /** The client's PKCE S256 challenge, checked at the token endpoint. */
  @Column({ type: 'varchar', length: 128 })
  codeChallenge: string;

  @Column({ type: 'text', nullable: true })
  scope: string | null;

  /** The base URL the client talked to: the `iss` it gets back and where the callback lives. */
  @Column({ type: 'text' })
  issuer: string;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
