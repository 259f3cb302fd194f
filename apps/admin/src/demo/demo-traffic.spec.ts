import { createRandom } from './demo-data';
import { demoTraffic } from './demo-traffic';

const MINUTE = 60_000;
const DAY = 86_400_000;
const PAGES = ['start', 'goals', 'budget', 'contact', 'thank-you'].map((slug) => ({ slug, title: slug }));

const SESSIONS = 30_000;

/** Session starts (their first event) of three days of traffic ending at `to`. */
function starts(to: number): number[] {
  const from = to - 3 * DAY;
  const result: number[] = [];
  for (const events of demoTraffic({ pages: PAGES, from, to, sessions: SESSIONS, random: createRandom(7) })) {
    result.push(Date.parse(events[0].occurredAt));
  }
  return result;
}

const count = (xs: number[], from: number, to: number) => xs.filter((t) => t >= from && t < to).length;

describe('demoTraffic', () => {
  // The benchmarks read windows whose edges are the first and last minutes of the traffic: those
  // must be as busy as the minutes next to them, wherever the window cuts the hour. (Hours 13 to
  // 16 UTC weigh 11, 12, 12 and 12.)
  it.each([5, 36, 50])('is as dense at the edges of a window cut at minute %i as next to them', (minute) => {
    const to = Date.UTC(2026, 10, 18, 14, minute);
    const from = to - 3 * DAY;
    const s = starts(to);
    expect(s).toHaveLength(SESSIONS);
    expect(count(s, from, to)).toBe(SESSIONS);
    // The first and last 20 minutes against the 20 minutes next to them (about 220 each).
    const pairs = [
      [count(s, from, from + 20 * MINUTE), count(s, from + 20 * MINUTE, from + 40 * MINUTE)],
      [count(s, to - 20 * MINUTE, to), count(s, to - 40 * MINUTE, to - 20 * MINUTE)],
    ];
    for (const [edge, next] of pairs) {
      expect(next).toBeGreaterThan(150);
      expect(edge / next).toBeGreaterThan(0.7);
      expect(edge / next).toBeLessThan(1.4);
    }
  });
});
