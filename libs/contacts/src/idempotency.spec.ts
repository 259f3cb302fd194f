import { canonicalJson, fingerprint } from './idempotency';

describe(canonicalJson.name, () => {
  it('sorts object keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });
});

describe(fingerprint.name, () => {
  it('is the same for the same request in another key order', () => {
    expect(fingerprint('POST /x', { email: 'a@b.c', firstName: 'A' })).toBe(
      fingerprint('POST /x', { firstName: 'A', email: 'a@b.c' }),
    );
  });

  it('differs for another operation or body', () => {
    const base = fingerprint('POST /x', { email: 'a@b.c' });
    expect(fingerprint('POST /y', { email: 'a@b.c' })).not.toBe(base);
    expect(fingerprint('POST /x', { email: 'a@b.d' })).not.toBe(base);
  });
});
