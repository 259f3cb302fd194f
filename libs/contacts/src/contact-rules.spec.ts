import { ValidationError } from '@app/core';
import { checkStandardValue, isReservedFieldName, resolveFieldName } from './contact-rules';

describe(resolveFieldName.name, () => {
  it.each([
    ['email', 'email'],
    ['EMAIL', 'email'],
    ['zip', 'postalCode'],
    ['Zip', 'postalCode'],
    ['postalcode', 'postalCode'],
    ['houseNumber', 'houseNumber'],
  ])('maps %s to the standard field %s', (name, field) => {
    expect(resolveFieldName(name)).toEqual({ kind: 'standard', name: field });
  });

  it.each(['plan', 'lead.score', 'a-b_c', 'x'.repeat(64)])('keeps %s as a custom property', (name) => {
    expect(resolveFieldName(name)).toEqual({ kind: 'property', name });
  });

  it.each([
    'id',
    'Meta',
    'utmparams',
    'properties',
    'messages',
    'address',
    'name',
    'fullAddress',
    'timezone',
    'createdAt',
    'updatedAt',
    'ps_',
    'ps_anything',
    'Ps_X',
    '__proto__',
  ])('refuses the reserved name %s', (name) => {
    expect(() => resolveFieldName(name)).toThrow(
      new ValidationError(`fieldName ${name} is a reserved system field and cannot be written`),
    );
  });

  it.each(['', 'two words', 'x'.repeat(65), 'ümlaut', 'a/b'])('refuses the custom name %p', (name) => {
    expect(() => resolveFieldName(name)).toThrow(
      /^fieldName must be a standard field or a custom property name/,
    );
  });
});

describe(checkStandardValue.name, () => {
  const statuses = ['lead', 'won'];
  it.each([
    ['email', 'ada@example.com'],
    ['phone', '+49 (151) 123-456'],
    ['phone', '0151/1234567'],
    ['website', 'example.com'],
    ['website', 'https://example.com/path?q=1'],
    ['birthday', '2000-02-29'],
    ['status', 'won'],
    ['city', 'Berlin'],
  ] as const)('accepts %s %p', (field, value) => {
    expect(checkStandardValue(field, value, statuses)).toBeUndefined();
  });

  it.each([
    ['email', 'ada@', 'email must be a valid email address'],
    ['phone', '12', expect.stringMatching(/^phone must be a phone number/)],
    ['phone', '+49 151 abc', expect.stringMatching(/^phone must be a phone number/)],
    ['website', 'ftp://example.com', 'website must be a URL such as https://example.com'],
    ['birthday', '2001-02-29', 'birthday must be a date in the form YYYY-MM-DD'],
    ['birthday', '2001-2-3', 'birthday must be a date in the form YYYY-MM-DD'],
    ['status', 'lost', "status must be one of the funnel's statuses: lead, won"],
    ['city', 'c'.repeat(201), 'city must be at most 200 characters'],
  ] as const)('refuses %s %p', (field, value, problem) => {
    expect(checkStandardValue(field, value, statuses)).toEqual(problem);
  });
});

describe(isReservedFieldName.name, () => {
  it.each(['ps_source', 'PS_x', 'id', 'ID', 'createdAt', 'createdat', '__proto__', '__PROTO__'])(
    'reserves %s',
    (name) => expect(isReservedFieldName(name)).toBe(true),
  );

  it.each(['email', 'zip', 'plan', 'ps', 'xps_a', 'proto', 'constructor'])('leaves %s writable', (name) =>
    expect(isReservedFieldName(name)).toBe(false),
  );
});
