import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';

const nested = (levels: number) => Buffer.from(`${'['.repeat(levels)}1${']'.repeat(levels)}`);

describe(exceedsJsonDepth.name, () => {
  it('accepts a body exactly at the limit and refuses one level more', () => {
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('counts objects and arrays alike', () => {
    expect(exceedsJsonDepth(Buffer.from('{"a":{"b":[{"c":1}]}}'), 3)).toBe(true);
    expect(exceedsJsonDepth(Buffer.from('{"a":{"b":[{"c":1}]}}'), 4)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(exceedsJsonDepth(Buffer.from(`{"a":"${'['.repeat(100)}"}`), 2)).toBe(false);
    expect(exceedsJsonDepth(Buffer.from(`{"a":"\\"${'{'.repeat(100)}"}`), 2)).toBe(false);
  });

  it('measures depth, not the number of siblings', () => {
    expect(exceedsJsonDepth(Buffer.from(`[${Array(1000).fill('[1]').join(',')}]`), 2)).toBe(false);
  });
});
