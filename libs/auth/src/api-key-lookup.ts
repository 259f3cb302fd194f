import { Injectable, Logger } from '@nestjs/common';
import { ChangeNotifications, NotifiedCache } from '@app/core';
import { ApiKeysRepository } from './api-keys.repository';
import type { Permission } from './entities/api-key.entity';

/**
 * The trigger on api_keys notifies this channel with the key's prefix on every insert, change and
 * delete (see the ApiKeyExpiry and ApiKeyInsertNotifications migrations).
 */
export const API_KEYS_CHANNEL = 'api_keys_changed';
// Notifications make changes visible at once; the age limit only bounds a missed one.
export const API_KEY_CACHE_TTL_MS = 60_000;
/** Prefixes known to have no key, remembered per process (oldest forgotten first). */
export const UNKNOWN_PREFIXES_KEPT = 10_000;
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

/**
 * API keys by lookup prefix, from memory: every REST request needs its key, and keys change
 * rarely. A revocation, expiry change or deletion committed anywhere drops the entry on every
 * replica as soon as PostgreSQL delivers the trigger's notification (see NotifiedCache). A prefix
 * without a key is remembered too, until a key with it is inserted anywhere.
 */
@Injectable()
export class ApiKeyLookup {
  private readonly logger = new Logger('ApiKeyLookup');
  private readonly cache: NotifiedCache<StoredKey>;

  constructor(
    private readonly keys: ApiKeysRepository,
    notifications: ChangeNotifications,
  ) {
    this.cache = new NotifiedCache(notifications, {
      channel: API_KEYS_CHANNEL,
      ttlMs: API_KEY_CACHE_TTL_MS,
      maxEntries: 10_000,
      // Each miss is one lookup, then none until a key with that prefix is inserted.
      maxMisses: UNKNOWN_PREFIXES_KEPT,
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
      this.keys
        .recordUse(key.id, LAST_USED_WRITE_INTERVAL_MS)
        .catch((error: Error) => this.logger.warn(`lastUsedAt not recorded: ${error.message}`));
    });
  }

  private async load(prefix: string): Promise<StoredKey | undefined> {
    const row = await this.keys.byPrefix(prefix);
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
