import type { ChangeNotifications } from './change-notifications';
import { NotifiedCache } from './notified-cache';

describe(NotifiedCache.name, () => {
  const notifications = { listening: true, subscribe: () => undefined } as unknown as ChangeNotifications;
  let loads: string[];
  const rows = new Map<string, string>();
  const load = (key: string) => async () => {
    loads.push(key);
    return rows.get(key);
  };

  beforeEach(() => {
    loads = [];
    rows.clear();
  });

  it('looks a missing key up every time when misses are not kept', async () => {
    const cache = new NotifiedCache<string>(notifications, { channel: 'c', ttlMs: 60_000, maxEntries: 10 });
    await cache.get('a', load('a'));
    await cache.get('a', load('a'));
    expect(loads).toEqual(['a', 'a']);
  });

  it('looks a missing key up once, and again after it is notified', async () => {
    const cache = new NotifiedCache<string>(notifications, {
      channel: 'c',
      ttlMs: 60_000,
      maxEntries: 10,
      maxMisses: 10,
    });
    expect(await cache.get('a', load('a'))).toBeUndefined();
    expect(await cache.get('a', load('a'))).toBeUndefined();
    expect(loads).toEqual(['a']);
    rows.set('a', 'row');
    cache.changed('a');
    expect(await cache.get('a', load('a'))).toBe('row');
    expect(loads).toEqual(['a', 'a']);
  });

  it('keeps at most maxMisses misses, never pushing a found entry out', async () => {
    const cache = new NotifiedCache<string>(notifications, {
      channel: 'c',
      ttlMs: 60_000,
      maxEntries: 10,
      maxMisses: 3,
    });
    rows.set('found', 'row');
    await cache.get('found', load('found'));
    for (const key of ['m1', 'm2', 'm3', 'm4']) await cache.get(key, load(key));
    loads = [];
    for (const key of ['found', 'm2', 'm3', 'm4', 'm1']) await cache.get(key, load(key));
    // m1 was the oldest miss, forgotten when m4 came.
    expect(loads).toEqual(['m1']);
  });

  it('keeps no miss while notifications are not received', async () => {
    const deaf = { listening: false, subscribe: () => undefined } as unknown as ChangeNotifications;
    const cache = new NotifiedCache<string>(deaf, {
      channel: 'c',
      ttlMs: 60_000,
      maxEntries: 10,
      maxMisses: 10,
    });
    await cache.get('a', load('a'));
    await cache.get('a', load('a'));
    expect(loads).toEqual(['a', 'a']);
  });
});
