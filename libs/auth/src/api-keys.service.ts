import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { isUuid, NotFoundError, ValidationError } from '@app/core';
import { generateKey, hashesMatch, hashKey, parseKeyPrefix } from './api-key.secret';
import { ApiKey, Permission, PERMISSIONS } from './entities/api-key.entity';
import { CompaniesService } from './companies.service';

export interface ApiKeyPrincipal {
  keyId: string;
  /** The key's public prefix: what logs name a caller by (never the key). */
  keyPrefix: string;
  companyId: string;
  permissions: Permission[];
}

export interface ApiKeySummary {
  id: string;
  name: string | null;
  prefix: string;
  permissions: Permission[];
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

@Injectable()
export class ApiKeysService {
  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    private readonly companies: CompaniesService,
  ) {}

  async create(
    companyId: string,
    permissions: string[],
    name?: string,
  ): Promise<{ id: string; key: string }> {
    const unknown = permissions.filter((p) => !PERMISSIONS.includes(p as Permission));
    if (!permissions.length || unknown.length) {
      throw new ValidationError(`permissions must be a non-empty list of ${PERMISSIONS.join(', ')}`);
    }
    await this.companies.assertExists(companyId);
    const generated = generateKey();
    const saved = await this.keys.save(
      this.keys.create({
        companyId,
        name: name ?? null,
        prefix: generated.prefix,
        keyHash: generated.hash,
        permissions: [...new Set(permissions)] as Permission[],
      }),
    );
    return { id: saved.id, key: generated.key };
  }

  async revoke(id: string): Promise<{ id: string; revokedAt: string }> {
    const key = isUuid(id) ? await this.keys.findOneBy({ id }) : null;
    if (!key) throw new NotFoundError('API key not found');
    if (!key.revokedAt) {
      key.revokedAt = new Date();
      await this.keys.save(key);
    }
    return { id: key.id, revokedAt: key.revokedAt.toISOString() };
  }

  async list(companyId: string): Promise<ApiKeySummary[]> {
    await this.companies.assertExists(companyId);
    const keys = await this.keys.find({ where: { companyId }, order: { createdAt: 'ASC' } });
    return keys.map((k) => ({
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      permissions: k.permissions,
      createdAt: k.createdAt.toISOString(),
      revokedAt: k.revokedAt?.toISOString() ?? null,
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    }));
  }

  /** The key's principal, or undefined when the key is malformed, unknown or revoked. */
  async authenticate(presented: string): Promise<ApiKeyPrincipal | undefined> {
    const prefix = parseKeyPrefix(presented);
    if (!prefix) return undefined;
    const key = await this.keys.findOneBy({ prefix });
    if (!key || !hashesMatch(key.keyHash, hashKey(presented)) || key.revokedAt) return undefined;
    return { keyId: key.id, keyPrefix: key.prefix, companyId: key.companyId, permissions: key.permissions };
  }
}
