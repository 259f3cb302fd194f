import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { sqlPool } from '@app/core';
import { ApiKey, Permission } from './entities/api-key.entity';

/** An api_keys row as the key check reads it. */
export interface ApiKeyRow {
  id: string;
  company_id: string;
  key_hash: string;
  permissions: Permission[];
  revoked_at: Date | null;
  expires_at: Date | null;
  last_used_at: Date | null;
}

export type NewApiKey = Pick<
  ApiKey,
  'companyId' | 'name' | 'prefix' | 'keyHash' | 'permissions' | 'expiresAt'
>;

/** The SQL of the api_keys table; the key check's reads and writes go without the ORM. */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get keys() {
    return this.dataSource.getRepository(ApiKey);
  }

  insert(key: NewApiKey): Promise<ApiKey> {
    return this.keys.save(this.keys.create(key));
  }

  findById(id: string): Promise<ApiKey | null> {
    return this.keys.findOneBy({ id });
  }

  async revoke(id: string, revokedAt: Date): Promise<void> {
    await this.keys.update({ id }, { revokedAt });
  }

  /** The company's keys, oldest first. */
  listForCompany(companyId: string): Promise<ApiKey[]> {
    return this.keys.find({ where: { companyId }, order: { createdAt: 'ASC' } });
  }

  async byPrefix(prefix: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await sqlPool(this.dataSource).query<ApiKeyRow>({
      name: 'api_key_by_prefix',
      text: `SELECT id, company_id, key_hash, permissions, revoked_at, expires_at, last_used_at
             FROM api_keys WHERE prefix = $1`,
      values: [prefix],
    });
    return rows[0];
  }

  /** Sets last_used_at to now unless another replica wrote it within the last `intervalMs`. */
  async recordUse(id: string, intervalMs: number): Promise<void> {
    await sqlPool(this.dataSource).query({
      name: 'api_key_used',
      text: `UPDATE api_keys SET last_used_at = now() WHERE id = $1
             AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $2))`,
      values: [id, intervalMs / 1000],
    });
  }
}
