import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A client registered by Dynamic Client Registration (RFC 7591): its own id, its exact redirect URIs. */
@Entity('oauth_clients')
export class OAuthClient {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 200, nullable: true })
  clientName: string | null;

  @Column({ type: 'jsonb' })
  redirectUris: string[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
