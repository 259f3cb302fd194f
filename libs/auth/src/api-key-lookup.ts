import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ChangeNotifications, NotifiedCache, sqlPool } from '@app/core';
import type { Permission } from './entities/api-key.entity';

/** The trigger on api_keys notifies this channel with the key's prefix (see the ApiKeyExpiry migration). */
export const API_KEYS_CHANNEL = 'api_keys_changed';
// Notifications make changes visible at once; the age limit only bounds a missed one.
export const API_KEY_CACHE_TTL_MS = 60_000;
/** `lastUsedAt` is written at most this often per key. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export interface StoredKey {
  id: string;
  companyId: string;
  keyHash: string;
  permissions: Permission[];
  revokedAt: Date | null;
  expiresAt: Date | null;
  /** When this process last saw the key's lastUsedAt written (ms since the epoch). */
  lastUsedMs: number;
}

interface KeyRow {
  id: string;
  company_id: string;
  key_hash: string;
  permissions: Permission[];
  revoked_at: Date | null;
  expires_at: Date | null;
  last_used_at: Date | null;
}

/**
 * API keys by lookup prefix, from memory: every REST request needs its key, and keys change
 * rarely. A revocation, expiry change or deletion committed anywhere drops the entry on every
 * replica as soon as PostgreSQL delivers the trigger's notification (see NotifiedCache).
 */
@Injectable()
export class ApiKeyLookup {
  private readonly logger = new Logger('ApiKeyLookup');
  private readonly cache: NotifiedCache<StoredKey>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    notifications: ChangeNotifications,
  ) {
    this.cache = new NotifiedCache(notifications, {
      channel: API_KEYS_CHANNEL,
      ttlMs: API_KEY_CACHE_TTL_MS,
      maxEntries: 10_000,
    });
  }

  byPrefix(prefix: string): Promise<StoredKey | undefined> {
    return this.cache.get(prefix, () => this.load(prefix));
  }

  forget(prefix: string): void {
    this.cache.changed(prefix);
  }

  /**
   * Records the use after the request, at most once a minute per key: the in-memory time spares
   * the write within a process, the WHERE clause across replicas.
   */
  recordUse(key: StoredKey): void {
    const now = Date.now();
    if (now - key.lastUsedMs < LAST_USED_WRITE_INTERVAL_MS) return;
    key.lastUsedMs = now;
    setImmediate(() => {
      sqlPool(this.dataSource)
        .query({
          name: 'api_key_used',
          text: `UPDATE api_keys SET last_used_at = now() WHERE id = $1
                 AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $2))`,
          values: [key.id, LAST_USED_WRITE_INTERVAL_MS / 1000],
        })
        .catch((error: Error) => this.logger.warn(`lastUsedAt not recorded: ${error.message}`));
    });
  }

  private async load(prefix: string): Promise<StoredKey | undefined> {
    const { rows } = await sqlPool(this.dataSource).query<KeyRow>({
      name: 'api_key_by_prefix',
      text: `SELECT id, company_id, key_hash, permissions, revoked_at, expires_at, last_used_at
             FROM api_keys WHERE prefix = $1`,
      values: [prefix],
    });
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      companyId: row.company_id,
      keyHash: row.key_hash,
      permissions: row.permissions,
      revokedAt: row.revoked_at,
      expiresAt: row.expires_at,
      lastUsedMs: row.last_used_at?.getTime() ?? 0,
    };
  }
}
