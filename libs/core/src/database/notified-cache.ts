import type { ChangeListener, ChangeNotifications } from './change-notifications';

export interface NotifiedCacheOptions {
  /** The NOTIFY channel whose payloads are this cache's keys. */
  channel: string;
  /** A backstop: an entry is read again after this long even if no notification came. */
  ttlMs: number;
  maxEntries: number;
}

/**
 * A read-through cache of rows that change rarely (API keys, funnels), kept right by PostgreSQL
 * notifications: an entry is dropped when its row changes anywhere, everything is dropped when
 * notifications may have been missed, and nothing is cached while they are not being received.
 * Misses (undefined) are never cached, so a new row is seen at once.
 */
export class NotifiedCache<V> implements ChangeListener {
  private readonly entries = new Map<string, { value: V; loadedAt: number }>();
  // Bumped by every change, so a load that raced with one is not kept.
  private generation = 0;
  private subscribed = false;

  constructor(
    private readonly notifications: ChangeNotifications,
    private readonly options: NotifiedCacheOptions,
  ) {}

  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    // On first read, so a process that never reads (the admin CLI) opens no listening connection.
    if (!this.subscribed) {
      this.subscribed = true;
      this.notifications.subscribe(this.options.channel, this);
    }
    const hit = this.entries.get(key);
    if (hit && performance.now() - hit.loadedAt < this.options.ttlMs) return hit.value;
    const generation = this.generation;
    const value = await load();
    if (value === undefined) this.entries.delete(key);
    else if (this.notifications.listening && generation === this.generation) this.store(key, value);
    return value;
  }

  changed(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  reset(): void {
    this.generation++;
    this.entries.clear();
  }

  private store(key: string, value: V): void {
    // Oldest first out: Map keeps insertion order.
    if (this.entries.size >= this.options.maxEntries && !this.entries.has(key)) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, { value, loadedAt: performance.now() });
  }
}
