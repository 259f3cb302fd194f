import type { AppConfigService } from '@app/core';
import { CompanyWriters } from './company-writers';

const writers = (limit: number) => new CompanyWriters({ get: () => limit } as unknown as AppConfigService);

describe(CompanyWriters.name, () => {
  it('lets a company run its limit at once and holds the next until one ends, in arrival order', async () => {
    const shares = writers(2);
    const first = await shares.acquire('a');
    await shares.acquire('a');
    const order: string[] = [];
    const third = shares.acquire('a').then((release) => (order.push('third'), release));
    const fourth = shares.acquire('a').then((release) => (order.push('fourth'), release));
    await Promise.resolve();
    expect(shares.usage('a')).toEqual({ running: 2, waiting: 2 });
    expect(order).toEqual([]);

    first();
    first(); // a second call gives nothing back again
    await third;
    expect(order).toEqual(['third']);
    expect(shares.usage('a')).toEqual({ running: 2, waiting: 1 });
    (await third)();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
  });

  it('keeps companies apart: one at its limit does not hold another back', async () => {
    const shares = writers(1);
    await shares.acquire('a');
    const waiting = shares.acquire('a');
    const other = await shares.acquire('b');
    expect(shares.usage('b')).toEqual({ running: 1, waiting: 0 });
    other();
    expect(shares.usage('b')).toEqual({ running: 0, waiting: 0 });
    expect(shares.usage('a')).toEqual({ running: 1, waiting: 1 });
    void waiting;
  });
});
