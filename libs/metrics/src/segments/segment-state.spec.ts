import fc from 'fast-check';
import { bucketStart, SEGMENT_GRAINS } from '../time/buckets';
import { planWindow } from './segment-state';

const MINUTE = 60_000;
const T = Date.parse('2026-05-10T00:00:00Z');

describe(planWindow.name, () => {
  const cases = fc.record({
    folded: fc.option(fc.integer({ min: -3000, max: 3000 }), { nil: null }),
    fine: fc.option(fc.integer({ min: -3000, max: 3000 }), { nil: null }),
    stale: fc.uniqueArray(fc.integer({ min: -3000, max: 3000 }), { maxLength: 8 }),
    a: fc.integer({ min: -3000 * MINUTE, max: 3000 * MINUTE }),
    b: fc.integer({ min: -3000 * MINUTE, max: 3000 * MINUTE }),
    short: fc.boolean(),
    points: fc.array(fc.integer({ min: -3100 * MINUTE, max: 3100 * MINUTE }), {
      minLength: 20,
      maxLength: 20,
    }),
  });

  it('counts every instant of the window once and nothing outside it, rollups only over clean folded minutes', () => {
    fc.assert(
      fc.property(cases, ({ folded, fine, stale, a, b, short, points }) => {
        const from = T + Math.min(a, b);
        const to = T + Math.max(a, b) + 1;
        const foldedTo = folded === null ? null : T + folded * MINUTE;
        const staleMinutes = new Set(stale.map((m) => T + m * MINUTE));
        const fineFrom = fine === null ? null : T + fine * MINUTE;
        const plan = planWindow({ foldedTo, fineFrom, stale: staleMinutes }, from, to, SEGMENT_GRAINS, short);
        // Ten-second rows only where the fold wrote them.
        const early = plan.segments.filter((s) => s.grain < 60 && s.from < (fineFrom ?? -Infinity));
        expect(early).toEqual([]);
        for (const s of plan.segments)
          for (let m = bucketStart(s.from, 60); m < s.to; m += MINUTE) {
            expect(foldedTo !== null && m + MINUTE <= foldedTo).toBe(true);
            expect(staleMinutes.has(m)).toBe(false);
          }
        const edges = [from, to - 1, from - 1, to, ...points.map((p) => T + p)];
        for (const p of edges) {
          const inRollups = plan.segments.filter((s) => s.from <= p && p < s.to).length;
          const inRaw = plan.raw.filter((r) => r.from <= p && p < r.to).reduce((sum, r) => sum + r.sign, 0);
          expect(inRollups + inRaw).toBe(p >= from && p < to ? 1 : 0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reads at most five seconds raw at each edge of a folded window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 * MINUTE }),
        fc.integer({ min: 1, max: 3000 * MINUTE }),
        (a, length) => {
          const plan = planWindow(
            { foldedTo: T + 6001 * MINUTE, fineFrom: null, stale: new Set() },
            T + a,
            T + a + length,
            SEGMENT_GRAINS,
            true,
          );
          for (const piece of plan.raw) expect(piece.to - piece.from).toBeLessThanOrEqual(5_000);
          expect(plan.raw.length).toBeLessThanOrEqual(2);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads at most half a minute raw at an edge folded before the ten-second rows began', () => {
    const state = { foldedTo: T + 6001 * MINUTE, fineFrom: T + 3000 * MINUTE, stale: new Set<number>() };
    // From 20 s into a minute folded before (its whole minute less 20 s) to 25 s into one after
    // (two ten-second buckets and 5 s).
    const plan = planWindow(state, T + 20_000, T + 5000 * MINUTE + 25_000, SEGMENT_GRAINS, true);
    expect(plan.raw).toEqual([
      { from: T + 5000 * MINUTE + 20_000, to: T + 5000 * MINUTE + 25_000, sign: 1 },
      { from: T, to: T + 20_000, sign: -1 },
    ]);
    expect(plan.segments.filter((s) => s.grain === 10).map((s) => [s.from, s.to])).toEqual([
      [T + 5000 * MINUTE, T + 5000 * MINUTE + 20_000],
    ]);
  });

  it('reads everything raw while nothing is folded', () => {
    const plan = planWindow(
      { foldedTo: null, fineFrom: null, stale: new Set() },
      T,
      T + 86_400_000,
      SEGMENT_GRAINS,
      true,
    );
    expect(plan).toEqual({ segments: [], raw: [{ from: T, to: T + 86_400_000, sign: 1 }] });
  });
});
