import type { ChangeListener, ChangeNotifications } from './change-notifications';

export interface NotifiedCacheOptions {
  /** The NOTIFY channel whose payloads are this cache's keys. */
  channel: string;
  /** A backstop: an entry is read again after this long even if no notification came. */
  ttlMs: number;
  maxEntries: number;
  /**
   * Remember this many misses (keys the load answered undefined for), apart from the entries so
   * a flood of unknown keys cannot push real ones out. Their table must notify inserts too, or a
   * row added later stays unseen until `ttlMs`. Unset: misses are never kept.
   */
  maxMisses?: number;
}

interface Entry<V> {
  value: V;
  loadedAt: number;
}

/**
 * A read-through cache of rows that change rarely (API keys, funnels), kept right by PostgreSQL
 * notifications: an entry is dropped when its row changes anywhere, everything is dropped when
 * notifications may have been missed, and nothing is cached while they are not being received.
 * Misses (undefined) are kept only with `maxMisses`, bounded and dropped the same way.
 */
export class NotifiedCache<V> implements ChangeListener {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly misses = new Map<string, Entry<undefined>>();
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
    const hit = this.entries.get(key) ?? this.misses.get(key);
    if (hit && performance.now() - hit.loadedAt < this.options.ttlMs) return hit.value;
    const generation = this.generation;
    const value = await load();
    this.entries.delete(key);
    this.misses.delete(key);
    if (!this.notifications.listening || generation !== this.generation) return value;
    if (value !== undefined) store(this.entries, key, value, this.options.maxEntries);
    else if (this.options.maxMisses) store(this.misses, key, undefined, this.options.maxMisses);
    return value;
  }

  changed(key: string): void {
    this.generation++;
    this.entries.delete(key);
    this.misses.delete(key);
  }

  reset(): void {
    this.generation++;
    this.entries.clear();
    this.misses.clear();
  }
}

function store<T>(map: Map<string, Entry<T>>, key: string, value: T, max: number): void {
  // Oldest first out: Map keeps insertion order.
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(key, { value, loadedAt: performance.now() });
}
