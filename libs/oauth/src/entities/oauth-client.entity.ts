import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const MAX_CLIENT_ID_LENGTH = 64;
export const MAX_CLIENT_NAME_LENGTH = 200;

/** A client registered by Dynamic Client Registration (RFC 7591): its own id, its exact redirect URIs. */
@Entity('oauth_clients')
export class OAuthClient {
  @PrimaryColumn({ type: 'varchar', length: MAX_CLIENT_ID_LENGTH })
  id: string;

  @Column({ type: 'varchar', length: MAX_CLIENT_NAME_LENGTH, nullable: true })
  clientName: string | null;

  @Column({ type: 'jsonb' })
  redirectUris: string[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
