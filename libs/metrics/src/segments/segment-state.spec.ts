import fc from 'fast-check';
import { SEGMENT_GRAINS, SESSION_GRAINS } from '../time/buckets';
import { signedCover } from '../time/time-cover';
import type { Cover } from '../time/time-cover';
import { foldedSessionCover, guardedMinutes, planWindow } from './segment-state';

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
  const cases = fc.record({
    ...WINDOW_CASES,
    finest: fc.option(fc.integer({ min: -3000, max: 3000 }), { nil: null }),
  });

  it('counts every instant of the window once and nothing outside it, rollups only over clean folded minutes', () => {
    fc.assert(
      fc.property(cases, ({ folded, finest, stale, a, b, points }) => {
        const from = T + Math.min(a, b);
        const to = T + Math.max(a, b) + 1;
        const foldedTo = folded === null ? null : T + folded * MINUTE;
        const staleMinutes = new Set(stale.map((m) => T + m * MINUTE));
        const finestFrom = finest === null ? null : T + finest * MINUTE;
        const plan = planWindow({ foldedTo, stale: staleMinutes, finestFrom }, from, to, SEGMENT_GRAINS);
        // Ten-second rows only where they exist.
        for (const s of plan.segments)
          expect(s.grain > 10 || finestFrom === null || s.from >= finestFrom).toBe(true);
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

describe(foldedSessionCover.name, () => {
  const rawMs = (pieces: { from: number; to: number }[]) => pieces.reduce((ms, p) => ms + p.to - p.from, 0);
  /** The cover as one statement reads it where the folded rows of the minutes `usable` may be read. */
  const asRead = (cover: Cover, usable: (minute: number) => boolean) => ({
    segments: cover.segments.filter((s) => s.guard === undefined || usable(s.guard)),
    raw: cover.raw.filter((r) => !r.guard || r.guard.folded === usable(r.guard.minute)),
  });

  it('counts every instant once whichever minutes the statement finds folded, ten-second rows only in guarded minutes', () => {
    fc.assert(
      fc.property(
        fc.record({ ...WINDOW_CASES, usable: fc.func(fc.boolean()) }),
        ({ a, b, points, usable }) => {
          const from = T + Math.min(a, b);
          const to = T + Math.max(a, b) + 1;
          const minutes = signedCover(from, to, SESSION_GRAINS);
          const cover = foldedSessionCover(minutes);
          for (const s of cover.segments) {
            if (s.grain !== 10) continue;
            // Inside the minute of its guard, which is one of an edge's.
            expect(s.guard).toBeDefined();
            expect(s.from).toBeGreaterThanOrEqual(s.guard!);
            expect(s.to).toBeLessThanOrEqual(s.guard! + MINUTE);
          }
          for (const r of cover.raw) expect(r.guard).toBeDefined();
          // One guard per minute the raw pieces span (a window under a minute may cross one).
          const parts = minutes.raw.flatMap((p) => {
            const spanned: number[] = [];
            for (let m = Math.floor(p.from / MINUTE); m * MINUTE < p.to; m++) spanned.push(m * MINUTE);
            return spanned;
          });
          const byTime = (x: number, y: number) => x - y;
          expect(guardedMinutes(cover).sort(byTime)).toEqual([...new Set(parts)].sort(byTime));
          const read = asRead(cover, (minute) => usable(minute));
          expectEachInstantOnce(read, from, to, points);
          // Folded, each of the window's two edges reads at most five seconds raw; otherwise what
          // ingestion's grains read.
          expect(rawMs(asRead(cover, () => true).raw)).toBeLessThanOrEqual(2 * 5_000);
          expect(rawMs(asRead(cover, () => false).raw)).toBe(rawMs(minutes.raw));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('guards each minute of a window shorter than a minute across a boundary on its own', () => {
    const from = T + 26 * MINUTE + 30_000;
    const to = T + 27 * MINUTE + 5_001;
    const minutes = signedCover(from, to, SESSION_GRAINS);
    const cover = foldedSessionCover(minutes);
    expect(guardedMinutes(cover).sort((x, y) => x - y)).toEqual([T + 26 * MINUTE, T + 27 * MINUTE]);
    // Only the first minute folded: the second's ten-second row is not read, its sessions are.
    const read = asRead(cover, (m) => m === T + 26 * MINUTE);
    expect(read.segments.every((s) => s.to <= T + 27 * MINUTE)).toBe(true);
    expect(rawMs(read.raw)).toBe(5_001);
  });

  it('reads at most five seconds of sessions at each edge off the minute where its minute may be read', () => {
    const from = T + 17 * MINUTE + 34_000;
    const to = T + 3 * 86_400_000 - 27_000;
    const minutes = signedCover(from, to, SESSION_GRAINS);
    expect(rawMs(minutes.raw)).toBe(26_000 + 27_000);
    const cover = foldedSessionCover(minutes);
    expect(guardedMinutes(cover).sort((x, y) => x - y)).toEqual([T + 17 * MINUTE, to - 33_000]);
    expect(rawMs(asRead(cover, () => true).raw)).toBe(4_000 + 3_000);
    // A change names the first minute: that edge reads its piece raw, the other its rows.
    expect(rawMs(asRead(cover, (m) => m !== T + 17 * MINUTE).raw)).toBe(26_000 + 3_000);
  });
});
