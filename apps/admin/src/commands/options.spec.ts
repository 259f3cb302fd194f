import { ValidationError } from '@app/core';
import { text } from './options';

describe('admin CLI text options', () => {
  it('passes storable text within the limit through unchanged', () => {
    expect(text('Acme GmbH 😀', '--name', 200)).toBe('Acme GmbH 😀');
  });

  it.each([
    ['a NUL character', 'Ac\u0000me', '--name must not contain NUL characters or unpaired surrogates'],
    ['an unpaired surrogate', 'Acme \ud800', '--name must not contain NUL characters or unpaired surrogates'],
    ['201 characters', 'x'.repeat(201), '--name must be at most 200 characters'],
  ])('refuses %s with the API’s rule and wording', (_case, value, message) => {
    expect(() => text(value, '--name', 200)).toThrow(new ValidationError(message));
  });
});
