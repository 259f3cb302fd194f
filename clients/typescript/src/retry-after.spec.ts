import { retryAfterMs } from './retry-after';

describe(retryAfterMs.name, () => {
  const now = Date.parse('2026-01-31T12:00:00.000Z');

  it('reads delay-seconds', () => {
    expect(retryAfterMs('42', now)).toBe(42_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date as the time left until it', () => {
    expect(retryAfterMs('Sat, 31 Jan 2026 12:00:30 GMT', now)).toBe(30_000);
  });

  it('waits nothing for a date already past', () => {
    expect(retryAfterMs('Sat, 31 Jan 2026 11:59:00 GMT', now)).toBe(0);
  });

  it('gives undefined when the header is absent or unreadable', () => {
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('', now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-5', now)).toBeUndefined();
  });
});
