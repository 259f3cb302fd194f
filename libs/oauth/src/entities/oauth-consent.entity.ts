import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A user's approval of a client: the scopes the user let it have, remembered so the consent page
 * is shown again only when the client asks for more. The user is the identity provider's subject.
 */
@Entity('oauth_consents')
export class OAuthConsent {
  /** The identity provider's `sub` for the user. */
  @PrimaryColumn({ type: 'text' })
  subject: string;

  @PrimaryColumn({ type: 'text' })
  clientId: string;

  /** The approved scopes, space-separated and sorted. */
  @Column({ type: 'text' })
  scopes: string;

  @CreateDateColumn({ type: 'timestamptz' })
  approvedAt: Date;
}
