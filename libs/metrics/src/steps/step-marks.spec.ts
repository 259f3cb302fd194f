import fc from 'fast-check';
import { MARK_KEY_FACTOR, markText, MAX_MARK_KEY_ID } from './step-marks';

const exact = (id: number, ms: number) => (BigInt(id) * MARK_KEY_FACTOR + BigInt(ms)).toString();

describe(markText.name, () => {
  it('writes id × 2^42 + ms exactly, as BigInt would', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_MARK_KEY_ID }),
        fc.oneof(
          fc.integer({ min: 0, max: 2 ** 42 - 1 }),
          fc.integer({ min: -(2 ** 43), max: 2 ** 43 }),
          fc.constantFrom(0, 1, 9_999_999, 10_000_000, 2 ** 42 - 1, 2 ** 42, -1),
        ),
        (id, ms) => expect(markText(id, ms)).toBe(exact(id, ms)),
      ),
      { numRuns: 5000 },
    );
  });

  it('carries between the limbs at their edges', () => {
    for (const [id, ms] of [
      [0, 0],
      [1, 0],
      [MAX_MARK_KEY_ID, 2 ** 42 - 1],
      [1, 3_488_896], // low limb 6,511,104 + 3,488,896 = exactly 10^7
      [2, 2 ** 42 - 1],
    ])
      expect(markText(id, ms)).toBe(exact(id, ms));
  });
});
