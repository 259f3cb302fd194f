import fc from 'fast-check';
import { SEGMENT_GRAINS } from '../time/buckets';
import { planWindow } from './segment-state';

const MINUTE = 60_000;
const T = Date.parse('2026-05-10T00:00:00Z');

/** A fold state (watermark and stale minutes, in minutes from T), a window's ends and instants to check. */
const WINDOW_CASES = {
  folded: fc.option(fc.integer({ min: -3000, max: 3000 }), { nil: null }),
  stale: fc.uniqueArray(fc.integer({ min: -3000, max: 3000 }), { maxLength: 8 }),
  a: fc.integer({ min: -3000 * MINUTE, max: 3000 * MINUTE }),
  b: fc.integer({ min: -3000 * MINUTE, max: 3000 * MINUTE }),
  points: fc.array(fc.integer({ min: -3100 * MINUTE, max: 3100 * MINUTE }), {
    minLength: 20,
    maxLength: 20,
  }),
};

/** The plan's buckets and raw pieces count each instant of [from, to) once, at its edges and at `points` (ms from T). */
function expectEachInstantOnce(
  plan: Pick<ReturnType<typeof planWindow>, 'segments' | 'raw'>,
  from: number,
  to: number,
  points: number[],
) {
  for (const p of [from, to - 1, from - 1, to, ...points.map((point) => T + point)]) {
    const inRollups = plan.segments
      .filter((s) => s.from <= p && p < s.to)
      .reduce((sum, s) => sum + s.sign, 0);
    const inRaw = plan.raw.filter((r) => r.from <= p && p < r.to).reduce((sum, r) => sum + r.sign, 0);
    expect(inRollups + inRaw).toBe(p >= from && p < to ? 1 : 0);
  }
}

describe(planWindow.name, () => {
  const cases = fc.record(WINDOW_CASES);

  it('counts every instant of the window once and nothing outside it, rollups only over clean folded minutes', () => {
    fc.assert(
      fc.property(cases, ({ folded, stale, a, b, points }) => {
        const from = T + Math.min(a, b);
        const to = T + Math.max(a, b) + 1;
        const foldedTo = folded === null ? null : T + folded * MINUTE;
        const staleMinutes = new Set(stale.map((m) => T + m * MINUTE));
        const plan = planWindow({ foldedTo, stale: staleMinutes }, from, to, SEGMENT_GRAINS);
        for (const s of plan.segments)
          for (let m = Math.floor(s.from / MINUTE) * MINUTE; m < s.to; m += MINUTE) {
            expect(foldedTo !== null && m + MINUTE <= foldedTo).toBe(true);
            expect(staleMinutes.has(m)).toBe(false);
          }
        // A bucket read for part of it names that part: inside the bucket and the window.
        for (const { within, from: lo, to: hi } of plan.segments.filter((s) => s.within)) {
          expect(within!.from).toBeGreaterThanOrEqual(Math.max(lo, from));
          expect(within!.to).toBeLessThanOrEqual(Math.min(hi, to));
          expect(within!.from).toBeLessThan(within!.to);
        }
        expectEachInstantOnce(plan, from, to, points);
      }),
      { numRuns: 200 },
    );
  });

  it('reads everything raw while nothing is folded', () => {
    const plan = planWindow({ foldedTo: null, stale: new Set() }, T, T + 86_400_000, SEGMENT_GRAINS);
    expect(plan).toEqual({ segments: [], raw: [{ from: T, to: T + 86_400_000, sign: 1 }] });
  });
});
