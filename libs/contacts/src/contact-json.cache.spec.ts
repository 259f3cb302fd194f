import { ContactJsonCache } from './contact-json.cache';

describe(ContactJsonCache.name, () => {
  let clock = 0;
  const caches: ContactJsonCache[] = [];
  const cache = (limit: number, idleMs = 60_000, admitEvery = 1) => {
    const made = new ContactJsonCache(limit, idleMs, () => clock, admitEvery);
    caches.push(made);
    return made;
  };
  afterAll(() => caches.forEach((c) => c.close()));

  it('answers a text only for the version it was made from', () => {
    const c = cache(100);
    c.set('a', '10', '{"id":"a"}');
    expect(c.get('a', '10')).toBe('{"id":"a"}');
    expect(c.get('a', '11')).toBeUndefined();
    expect(c.get('b', '10')).toBeUndefined();
  });

  it('replaces the text of an older version', () => {
    const c = cache(100);
    c.set('a', '10', 'old');
    c.set('a', '11', 'new');
    expect(c.get('a', '10')).toBeUndefined();
    expect(c.get('a', '11')).toBe('new');
    expect(c.size).toBe(1);
  });

  it('drops the least recently read texts past its size', () => {
    const c = cache(10);
    c.set('a', '1', 'aaaa');
    c.set('b', '1', 'bbbb');
    expect(c.get('a', '1')).toBe('aaaa'); // a is now the most recently read
    c.set('c', '1', 'cccc'); // 12 characters: b goes
    expect(c.get('b', '1')).toBeUndefined();
    expect(c.get('a', '1')).toBe('aaaa');
    expect(c.get('c', '1')).toBe('cccc');
  });

  it('once full, lets a new contact in on one miss in its admission rate, and a new version always', () => {
    const c = cache(8, 60_000, 3);
    c.set('a', '1', 'aaaa');
    c.set('b', '1', 'bbbb');
    c.set('c', '1', 'cccc');
    c.set('c', '1', 'cccc');
    expect(c.get('c', '1')).toBeUndefined();
    expect(c.get('a', '1')).toBe('aaaa');
    c.set('c', '1', 'cccc'); // the third miss: b, the least recently read, goes
    expect(c.get('c', '1')).toBe('cccc');
    expect(c.get('b', '1')).toBeUndefined();
    expect(c.get('a', '1')).toBe('aaaa');
    c.set('a', '2', 'AAAAA'); // a kept contact's new version gets in, though the cache is full
    expect(c.get('a', '2')).toBe('AAAAA');
    expect(c.get('c', '1')).toBeUndefined();
    expect(c.size).toBe(1);
  });

  it('keeps no text larger than its size', () => {
    const c = cache(3);
    c.set('a', '1', 'aaaa');
    expect(c.size).toBe(0);
  });

  it('drops texts left unread for the idle time, and forgets one on request', () => {
    const c = cache(100, 1_000);
    clock = 0;
    c.set('a', '1', 'a');
    c.set('b', '1', 'b');
    clock = 600;
    c.get('b', '1');
    clock = 1_200;
    c.dropIdle();
    expect(c.get('a', '1')).toBeUndefined();
    expect(c.get('b', '1')).toBe('b');
    c.forget('b');
    expect(c.size).toBe(0);
  });
});
