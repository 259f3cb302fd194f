import { requestIdFor } from './request-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe(requestIdFor.name, () => {
  it('keeps a caller id of 1 to 128 visible ASCII characters', () => {
    expect(requestIdFor('req-1')).toBe('req-1');
    expect(requestIdFor('x'.repeat(128))).toBe('x'.repeat(128));
    expect(requestIdFor(['first', 'second'])).toBe('first');
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['too long', 'x'.repeat(129)],
    ['with a space', 'a b'],
    ['with a line break', 'a\nb'],
    ['not ASCII', 'réq'],
  ])('generates a new id when the caller id is %s', (_, incoming) => {
    expect(requestIdFor(incoming)).toMatch(UUID);
  });
});
