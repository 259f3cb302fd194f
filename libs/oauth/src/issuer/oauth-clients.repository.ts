import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OAuthClient } from '../entities';

/** The SQL of the oauth_clients table (clients registered by Dynamic Client Registration). */
@Injectable()
export class OAuthClientsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get clients() {
    return this.dataSource.getRepository(OAuthClient);
  }

  findById(id: string): Promise<OAuthClient | null> {
    return this.clients.findOneBy({ id });
  }

  insert(client: Pick<OAuthClient, 'id' | 'clientName' | 'redirectUris'>): Promise<OAuthClient> {
    return this.clients.save(this.clients.create(client));
  }
}
