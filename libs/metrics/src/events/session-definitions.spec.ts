import fc from 'fast-check';
import { AB_VARIANTS, DEVICES } from './event-types';
import {
  parseSegmentKey,
  SEGMENT_KEY_MAX_BYTES,
  SEGMENT_KEY_MAX_LENGTH,
  SEGMENT_VALUE_MAX_LENGTH,
  segmentKey,
} from './session-definitions';

const codePoints = (s: string) => [...s].length;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

// A utm value as stored: 1 to 200 code points, any but NUL (PostgreSQL text cannot hold it),
// weighted towards the characters that cost most (4-byte emoji, quotes, backslashes, controls).
const heavy = fc.constantFrom('😀', '𝄞', '"', '\\', '\u0001', '\u001f', '語', ':', '-', '9');
const utmValue = fc
  .array(fc.oneof(heavy, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), {
    minLength: 1,
    maxLength: SEGMENT_VALUE_MAX_LENGTH,
  })
  .map((chars) => [...chars.join('').replace(/\0/g, 'x')].slice(0, SEGMENT_VALUE_MAX_LENGTH).join(''))
  .filter((s) => s.length > 0);
const segment = fc.tuple(
  fc.constantFrom(...DEVICES),
  fc.option(utmValue),
  fc.option(utmValue),
  fc.option(utmValue),
  fc.option(fc.constantFrom(...AB_VARIANTS)),
);

describe(segmentKey.name, () => {
  it('reads back every combination exactly', () => {
    fc.assert(
      fc.property(segment, (values) => {
        expect(parseSegmentKey(segmentKey(values))).toEqual(values);
      }),
      { numRuns: 300 },
    );
  });

  it('gives distinct combinations distinct keys', () => {
    fc.assert(
      fc.property(segment, segment, (a, b) => {
        expect(segmentKey(a) === segmentKey(b)).toBe(JSON.stringify(a) === JSON.stringify(b));
      }),
      { numRuns: 300 },
    );
    // Values that look like the encoding itself.
    expect(segmentKey(['mobile', '1:a', null, null, null])).not.toBe(
      segmentKey(['mobile', '1', 'a', null, null]),
    );
    expect(parseSegmentKey(segmentKey(['other', '-', '3:--', ':', 'original']))).toEqual([
      'other',
      '-',
      '3:--',
      ':',
      'original',
    ]);
  });

  it('stays within its bounds for any values', () => {
    fc.assert(
      fc.property(segment, (values) => {
        const key = segmentKey(values);
        expect(codePoints(key)).toBeLessThanOrEqual(SEGMENT_KEY_MAX_LENGTH);
        expect(bytes(key)).toBeLessThanOrEqual(SEGMENT_KEY_MAX_BYTES);
      }),
      { numRuns: 300 },
    );
  });

  it('reaches its bounds with the heaviest values', () => {
    const longest = <T extends string>(list: readonly T[]) =>
      list.reduce((a, b) => (b.length > a.length ? b : a));
    const values = (char: string) => [
      longest(DEVICES),
      char.repeat(SEGMENT_VALUE_MAX_LENGTH),
      char.repeat(SEGMENT_VALUE_MAX_LENGTH),
      char.repeat(SEGMENT_VALUE_MAX_LENGTH),
      longest(AB_VARIANTS),
    ];
    // A 4-byte character: the most bytes.
    const emoji = segmentKey(values('😀'));
    expect(bytes(emoji)).toBe(SEGMENT_KEY_MAX_BYTES);
    expect(codePoints(emoji)).toBe(SEGMENT_KEY_MAX_LENGTH);
    // Characters JSON escapes take no more room than any other.
    for (const char of ['\u0001', '"', '\\']) {
      const key = segmentKey(values(char));
      expect(codePoints(key)).toBe(SEGMENT_KEY_MAX_LENGTH);
      expect(bytes(key)).toBeLessThan(SEGMENT_KEY_MAX_BYTES);
      expect(parseSegmentKey(key)).toEqual(values(char));
    }
    // The index row limit of PostgreSQL (8 kB pages), less the other key columns and headers.
    expect(SEGMENT_KEY_MAX_BYTES + 4 + 16 + 8 + 4 + 8 + 8 + 16).toBeLessThan(2704);
  });
});
