import fc from 'fast-check';
import { SECOND_MS } from '../time/buckets';
import { coarserBuckets } from './segment-refold';

const MINUTE = 60_000;
const T = Date.parse('2026-05-10T00:00:00Z');

describe(coarserBuckets.name, () => {
  const cases = fc.record({
    grain: fc.constantFrom(900, 3600, 86_400),
    minutes: fc.uniqueArray(fc.integer({ min: 0, max: 3 * 1440 }), { maxLength: 6 }),
    before: fc.integer({ min: 0, max: 3 * 1440 }),
    more: fc.integer({ min: 0, max: 2 * 1440 }),
  });

  it('names every whole bucket the fold changes or the watermark completes, and no other', () => {
    fc.assert(
      fc.property(cases, ({ grain, minutes, before, more }) => {
        const size = grain * SECOND_MS;
        const foldedBefore = T + before * MINUTE;
        const foldedAfter = foldedBefore + more * MINUTE;
        // Changed minutes before the watermark and the new ones up to its new place.
        const finer = [
          ...minutes
            .filter((m) => T + m * MINUTE < foldedBefore)
            .map((m) => ({ from: T + m * MINUTE, to: T + (m + 1) * MINUTE })),
          ...(more ? [{ from: foldedBefore, to: foldedAfter }] : []),
        ];
        const buckets = coarserBuckets(grain, finer, foldedBefore, foldedAfter);
        const starts = buckets.map((b) => b.from);
        expect(starts).toEqual([...new Set(starts)].sort((a, b) => a - b));
        for (let b = T - size; b < T + 6 * 86_400_000; b += size) {
          const whole = b + size <= foldedAfter;
          const touched = finer.some((r) => r.from < b + size && b < r.to);
          const completed = b < foldedBefore && foldedBefore < b + size;
          expect(starts.includes(b)).toBe(whole && (touched || completed));
        }
        for (const bucket of buckets) expect(bucket.to - bucket.from).toBe(size);
      }),
      { numRuns: 300 },
    );
  });
});
