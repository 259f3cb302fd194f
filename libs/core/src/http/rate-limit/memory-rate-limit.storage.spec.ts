import { MemoryRateLimitStorage } from './memory-rate-limit.storage';

describe(MemoryRateLimitStorage.name, () => {
  let now: number;
  let storage: MemoryRateLimitStorage;

  beforeEach(() => {
    now = 1_000_000;
    storage = new MemoryRateLimitStorage(() => now);
  });
  afterEach(() => storage.close());

  const hit = (key = 'k') => storage.increment(key, 60_000, 2);

  it('counts hits in a fixed window and blocks past the limit until it ends', async () => {
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    now += 20_500;
    expect(await hit()).toEqual({ totalHits: 2, timeToExpire: 40, isBlocked: false, timeToBlockExpire: 0 });
    now += 10_000;
    expect(await hit()).toEqual({ totalHits: 3, timeToExpire: 30, isBlocked: true, timeToBlockExpire: 30 });
  });

  it('starts a new window once the old one has ended', async () => {
    await hit();
    await hit();
    await hit();
    now += 60_000;
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
  });

  it('keeps one count per key', async () => {
    await hit('a');
    await hit('a');
    expect((await hit('b')).totalHits).toBe(1);
  });

  it('never reports less than one second left', async () => {
    await hit();
    now += 59_999;
    expect((await hit()).timeToExpire).toBe(1);
  });

  it('answers the open window without counting, and nothing once it ended', async () => {
    expect(await storage.peek('k')).toBeUndefined();
    await hit();
    now += 10_000;
    expect(await storage.peek('k')).toEqual({ hits: 1, msLeft: 50_000 });
    expect(await storage.peek('k')).toEqual({ hits: 1, msLeft: 50_000 });
    now += 50_000;
    expect(await storage.peek('k')).toBeUndefined();
  });
});
