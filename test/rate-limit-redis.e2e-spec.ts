import Redis from 'ioredis';
import { RedisRateLimitStorage, REDIS_KEY_PREFIX } from '@app/core';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { RedisServer, startRedisServer } from './support/redis-server';
import { eventually } from './support/webhook-receiver';

describe('Rate limits shared through Redis (REDIS_URL)', () => {
  let redis: RedisServer;
  let client: Redis;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    client.disconnect();
    await redis.stop();
  });

  describe(RedisRateLimitStorage.name, () => {
    let storage: RedisRateLimitStorage;
    beforeAll(async () => {
      storage = RedisRateLimitStorage.fromUrl(redis.url);
      await storage.connect();
    });
    afterAll(() => storage.close());

    it('counts in a fixed window that expires on the server', async () => {
      expect(await storage.increment('unit:a', 400, 2)).toEqual({
        totalHits: 1,
        timeToExpire: 1,
        isBlocked: false,
        timeToBlockExpire: 0,
      });
      await storage.increment('unit:a', 400, 2);
      expect(await storage.increment('unit:a', 400, 2)).toMatchObject({
        totalHits: 3,
        isBlocked: true,
      });
      const ttl = await client.pttl(`${REDIS_KEY_PREFIX}unit:a`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(400);
      // Once Redis has expired the window, a new one starts.
      await eventually(async () => (await client.pttl(`${REDIS_KEY_PREFIX}unit:a`)) === -2, 30_000);
      expect(await storage.increment('unit:a', 400, 2)).toMatchObject({
        totalHits: 1,
        isBlocked: false,
      });
    });

    it('answers the open window without counting (peek)', async () => {
      expect(await storage.peek('unit:peek')).toBeUndefined();
      await storage.increment('unit:peek', 60_000, 5);
      await storage.increment('unit:peek', 60_000, 5);
      const window = await storage.peek('unit:peek');
      expect(window?.hits).toBe(2);
      expect(window?.msLeft).toBeGreaterThan(0);
      expect(window?.msLeft).toBeLessThanOrEqual(60_000);
      expect((await storage.peek('unit:peek'))?.hits).toBe(2);
    });

    it('counts concurrent hits exactly once each', async () => {
      const records = await Promise.all(
        Array.from({ length: 50 }, () => storage.increment('unit:b', 60_000, 100)),
      );
      expect(records.map((r) => r.totalHits).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
    });
  });

  describe('two replicas', () => {
    let first: TestApp;
    let second: TestApp;
    let acme: TenantFixture;

    beforeAll(async () => {
      first = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5', REDIS_URL: redis.url });
      second = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5', REDIS_URL: redis.url }, first.databaseUrl);
      acme = await createTenant(first.app);
    });
    afterAll(async () => {
      await second.close();
      await first.close();
    });

    it('share one count per API key', async () => {
      const a = httpClient(first.baseUrl, acme.key);
      const b = httpClient(second.baseUrl, acme.key);
      const remaining: string[] = [];
      for (const api of [a, b, a, b, a]) {
        const res = await api.get('/v1/workspaces');
        expect(res.status).toBe(200);
        remaining.push(res.headers.get('ratelimit-remaining')!);
      }
      expect(remaining).toEqual(['4', '3', '2', '1', '0']);
      const refused = await b.get('/v1/workspaces');
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        error: 'Rate limit exceeded',
        status: 429,
        retryAfter: expect.any(Number),
      });
      expect(Number(refused.headers.get('retry-after'))).toBe(refused.body.retryAfter);
      expect((await a.get('/v1/workspaces')).status).toBe(429);
    });

    it('store a hash of the key, never the key itself', async () => {
      const keys = await client.keys(`${REDIS_KEY_PREFIX}*`);
      expect(keys.some((k) => /^funnel-crm:ratelimit:api:key:[0-9a-f]{64}$/.test(k))).toBe(true);
      expect(keys.join('\n')).not.toContain(acme.key);
    });

    it('let requests through when Redis is unreachable', async () => {
      const other = await createTenant(first.app);
      await redis.stop();
      try {
        // Answered while Redis stays stopped (it starts again only below): none waits for it.
        const res = await httpClient(first.baseUrl, other.key).get('/v1/workspaces');
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBeNull();
        // Under load on both replicas too, past the limit of 5: let through (as docs/API.md says), and
        // the service stays ready.
        const burst = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            httpClient((i % 2 ? second : first).baseUrl, other.key).get('/v1/workspaces'),
          ),
        );
        expect(burst.map((r) => r.status)).toEqual(Array(30).fill(200));
        expect((await fetch(`${first.baseUrl}/health`)).status).toBe(200);
      } finally {
        const restarted = await startRedisServer();
        redis = restarted;
        client.disconnect();
        client = new Redis(redis.url);
      }
    });
  });
});
