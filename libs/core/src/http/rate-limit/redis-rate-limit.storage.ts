import Redis from 'ioredis';
import { RateLimitStorage, ThrottlerStorageRecord, windowRecord } from './rate-limit-storage';

// One round trip, atomic on the server: count the hit, open the window on the first hit, and
// answer the count with the time left. A key left without expiry (never expected) gets one.
const HIT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return { hits, left }
`;

type HitCommand = (key: string, ttl: number) => Promise<[number, number]>;

export const REDIS_KEY_PREFIX = 'funnel-crm:ratelimit:';

/** Counts in Redis, so every replica of the service shares one count per caller. */
export class RedisRateLimitStorage implements RateLimitStorage {
  private readonly hit: HitCommand;

  constructor(private readonly redis: Redis) {
    redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.hit = (redis as unknown as { rateLimitHit: HitCommand }).rateLimitHit.bind(redis);
  }

  static fromUrl(url: string): RedisRateLimitStorage {
    return new RedisRateLimitStorage(
      new Redis(url, {
        keyPrefix: REDIS_KEY_PREFIX,
        // A request must not wait on an unreachable Redis: the guard lets it through instead.
        commandTimeout: 500,
        maxRetriesPerRequest: 1,
        lazyConnect: true,
      }),
    );
  }

  /** Connects now so a wrong REDIS_URL shows at startup; failures after that are retried. */
  async connect(): Promise<void> {
    if (this.redis.status === 'wait') await this.redis.connect();
  }

  onError(listener: (error: Error) => void): void {
    this.redis.on('error', listener);
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const [hits, msLeft] = await this.hit(key, ttl);
    return windowRecord(Number(hits), Number(msLeft), limit);
  }

  /** Answers nothing at once while Redis is not connected: a request must not wait on an outage twice. */
  async peek(key: string): Promise<{ hits: number; msLeft: number } | undefined> {
    if (this.redis.status !== 'ready') return undefined;
    const replies = await this.redis.multi().get(key).pttl(key).exec();
    const failed = replies?.find(([error]) => error)?.[0];
    if (!replies || failed) throw failed ?? new Error('Redis transaction aborted');
    const hits = replies[0][1] as string | null;
    const msLeft = Number(replies[1][1]);
    return hits === null || msLeft <= 0 ? undefined : { hits: Number(hits), msLeft };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
