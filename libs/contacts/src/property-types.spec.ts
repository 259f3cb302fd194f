import { checkPropertyValue } from './property-types';

describe(checkPropertyValue.name, () => {
  it.each([
    [undefined, ' plain ', 'plain'],
    [undefined, 42, '42'],
    [undefined, true, 'true'],
    [{ type: 'string' }, 7, '7'],
    [{ type: 'number' }, '42', 42],
    [{ type: 'number' }, '-0.5e2', -50],
    [{ type: 'number' }, 3.25, 3.25],
    [{ type: 'boolean' }, 'false', false],
    [{ type: 'boolean' }, true, true],
    [{ type: 'date' }, '2024-02-29', '2024-02-29'],
    [{ type: 'enum', options: ['free', 'pro'] }, 'pro', 'pro'],
  ] as const)('stores %j %j as %j', (rule, raw, value) => {
    expect(checkPropertyValue(raw, rule, 'properties.p')).toEqual({ value });
  });

  it.each([
    [{ type: 'number' }, 'high', 'properties.p must be a number'],
    [{ type: 'number' }, '1,5', 'properties.p must be a number'],
    [{ type: 'number' }, Number.NaN, 'properties.p must be a number'],
    [{ type: 'boolean' }, 'yes', 'properties.p must be true or false'],
    [{ type: 'date' }, '2023-02-29', 'properties.p must be a date in the form YYYY-MM-DD'],
    [{ type: 'date' }, 20240101, 'properties.p must be a date in the form YYYY-MM-DD'],
    [{ type: 'enum', options: ['free', 'pro'] }, 'gold', 'properties.p must be one of: free, pro'],
    [undefined, { nested: true }, 'properties.p must be a string, a number or a boolean'],
    [undefined, 'x'.repeat(2001), 'properties.p must be at most 2000 characters'],
  ] as const)('refuses %j %j, naming the property', (rule, raw, problem) => {
    expect(checkPropertyValue(raw, rule, 'properties.p')).toEqual({ problem });
  });
});
