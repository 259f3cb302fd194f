import { Injectable } from '@nestjs/common';
import { isUuid, NotFoundError, ValidationError } from '@app/core';
import { generateKey, hashesMatch, hashKey, parseKeyPrefix } from './api-key.secret';
import { ApiKeysRepository } from './api-keys.repository';
import { Permission, PERMISSIONS } from './entities/api-key.entity';
import { CompaniesService } from './companies.service';
import { ApiKeyLookup } from './api-key-lookup';

export interface ApiKeyPrincipal {
  keyId: string;
  /** The key's public prefix: what logs name a caller by (never the key). */
  keyPrefix: string;
  companyId: string;
  permissions: Permission[];
}

/** A key's principal, or why it is refused: unknown, malformed or revoked; or past its expiry. */
export type ApiKeyCheck = { principal: ApiKeyPrincipal } | { refused: 'invalid' | 'expired' };

export interface ApiKeySummary {
  id: string;
  name: string | null;
  prefix: string;
  permissions: Permission[];
  createdAt: string;
  revokedAt: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly companies: CompaniesService,
    private readonly lookup: ApiKeyLookup,
  ) {}

  /** `expiresInMs` (from parseExpiresIn): the key answers 401 `API key expired` after that long. */
  async create(
    companyId: string,
    permissions: string[],
    name?: string,
    options: { expiresInMs?: number } = {},
  ): Promise<{ id: string; key: string; expiresAt?: string }> {
    const unknown = permissions.filter((p) => !PERMISSIONS.includes(p as Permission));
    if (!permissions.length || unknown.length) {
      throw new ValidationError(`permissions must be a non-empty list of ${PERMISSIONS.join(', ')}`);
    }
    await this.companies.assertExists(companyId);
    const generated = generateKey();
    const saved = await this.keys.insert({
      companyId,
      name: name ?? null,
      prefix: generated.prefix,
      keyHash: generated.hash,
      permissions: [...new Set(permissions)] as Permission[],
      expiresAt: options.expiresInMs === undefined ? null : new Date(Date.now() + options.expiresInMs),
    });
    // A request may have tried the prefix before it existed; other processes hear of it from the trigger.
    this.lookup.forget(generated.prefix);
    const created = { id: saved.id, key: generated.key };
    return saved.expiresAt ? { ...created, expiresAt: saved.expiresAt.toISOString() } : created;
  }

  async revoke(id: string): Promise<{ id: string; revokedAt: string }> {
    const key = isUuid(id) ? await this.keys.findById(id) : null;
    if (!key) throw new NotFoundError('API key not found');
    if (!key.revokedAt) {
      key.revokedAt = new Date();
      await this.keys.revoke(key.id, key.revokedAt);
      // Other processes hear of it from the trigger; this one need not wait for that.
      this.lookup.forget(key.prefix);
    }
    return { id: key.id, revokedAt: key.revokedAt.toISOString() };
  }

  async list(companyId: string): Promise<ApiKeySummary[]> {
    await this.companies.assertExists(companyId);
    const keys = await this.keys.listForCompany(companyId);
    return keys.map((k) => ({
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      permissions: k.permissions,
      createdAt: k.createdAt.toISOString(),
      revokedAt: k.revokedAt?.toISOString() ?? null,
      expiresAt: k.expiresAt?.toISOString() ?? null,
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    }));
  }

  /** Checks a presented key (from memory, see ApiKeyLookup) and records its use. */
  async authenticate(presented: string): Promise<ApiKeyCheck> {
    const prefix = parseKeyPrefix(presented);
    if (!prefix) return { refused: 'invalid' };
    const key = await this.lookup.byPrefix(prefix);
    if (!key || !hashesMatch(key.keyHash, hashKey(presented)) || key.revokedAt) return { refused: 'invalid' };
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) return { refused: 'expired' };
    this.lookup.recordUse(key);
    return {
      principal: { keyId: key.id, keyPrefix: prefix, companyId: key.companyId, permissions: key.permissions },
    };
  }
}
