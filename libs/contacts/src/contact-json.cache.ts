/** JSON text kept for at most this many characters in all (8 MB for Latin-1 text, twice that for other text). */
export const CONTACT_JSON_CACHE_CHARS = 8_000_000;
/** A text not read for this long is dropped, so an erased contact leaves every replica's memory. */
export const CONTACT_JSON_IDLE_MS = 5 * 60_000;
/** Once full, a new contact's text is let in on one miss in this many (see `set`). */
export const CONTACT_JSON_ADMIT_EVERY = 8;

interface Entry {
  version: string;
  json: string;
  usedAt: number;
}

/**
 * Contacts as the API sends them (JSON text), each kept with the version of the row it was made
 * from: PostgreSQL's `xmin`, which every write of the row changes (a recorded message too, since
 * it touches its contact). A read still asks the database for the versions of the contacts it
 * returns, in the statement that finds them, and uses a text only when its version is the one
 * read: a read never shows an older contact than the database holds, on any replica. What it
 * saves is this process's per-contact work: reading the columns, presenting and serialising.
 * Least recently used texts go first once CONTACT_JSON_CACHE_CHARS are held, and any text unread
 * for CONTACT_JSON_IDLE_MS. Once full, a new contact gets in on one miss in CONTACT_JSON_ADMIT_EVERY:
 * reads that sweep more contacts than fit (page after page of a large funnel) would otherwise
 * replace every text before it is read again, and that churn costs more garbage collection than
 * the texts save, while a contact read often still gets in after a few reads.
 */
export class ContactJsonCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  private misses = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limit = CONTACT_JSON_CACHE_CHARS,
    private readonly idleMs = CONTACT_JSON_IDLE_MS,
    private readonly now: () => number = Date.now,
    private readonly admitEvery = CONTACT_JSON_ADMIT_EVERY,
  ) {
    this.sweeper = setInterval(() => this.dropIdle(), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  /** The text of contact `id` at `version`, if kept. */
  get(id: string, version: string): string | undefined {
    const entry = this.entries.get(id);
    if (!entry || entry.version !== version) return undefined;
    // Most recently used last: a Map keeps insertion order.
    this.entries.delete(id);
    entry.usedAt = this.now();
    this.entries.set(id, entry);
    return entry.json;
  }

  /** Whether a text of contact `id` is kept, whatever its version. */
  holds(id: string): boolean {
    return this.entries.has(id);
  }

  set(id: string, version: string, json: string): void {
    const kept = this.entries.has(id);
    this.forget(id);
    if (json.length > this.limit) return;
    // A newer version of a kept contact always replaces it; a new contact displaces others rarely.
    if (!kept && this.chars + json.length > this.limit && ++this.misses % this.admitEvery !== 0) return;
    this.entries.set(id, { version, json, usedAt: this.now() });
    this.chars += json.length;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= this.limit) break;
      this.drop(oldest, entry);
    }
  }

  forget(id: string): void {
    const entry = this.entries.get(id);
    if (entry) this.drop(id, entry);
  }

  get size(): number {
    return this.entries.size;
  }

  onModuleDestroy(): void {
    this.close();
  }

  close(): void {
    clearInterval(this.sweeper);
    this.entries.clear();
    this.chars = 0;
  }

  dropIdle(): void {
    const before = this.now() - this.idleMs;
    for (const [id, entry] of this.entries) {
      if (entry.usedAt > before) break;
      this.drop(id, entry);
    }
  }

  private drop(id: string, entry: Entry): void {
    this.entries.delete(id);
    this.chars -= entry.json.length;
  }
}
