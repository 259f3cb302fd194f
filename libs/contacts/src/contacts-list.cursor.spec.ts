import { randomUUID } from 'node:crypto';
import { ValidationError } from '@app/core';
import { decodeCursor, encodeCursor } from './contacts-list.cursor';
import type { SortField } from './contacts-list.query';

const filters = { status: 'lead' };
const id = randomUUID();

/** A cursor of the right query whose members are replaced, as a forger would. */
function forged(sortField: SortField, members: Record<string, unknown>): string {
  const real = encodeCursor(sortField, -1, filters, { value: null, id, page: 1 });
  const body = { ...JSON.parse(Buffer.from(real, 'base64url').toString()), ...members };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof ValidationError ? error.message : `not a ValidationError: ${String(error)}`;
  }
  return 'accepted';
};

describe(decodeCursor.name, () => {
  it('answers the position a cursor holds', () => {
    for (const [field, value] of [
      ['updatedAt', '2026-01-31 12:00:00.123456+00'],
      ['ps_converted_at', '0044-03-15 10:00:00+00:53:28 BC'],
      ['ps_converted_at', '2024-02-29 23:59:59-09:30'],
      ['updatedAt', 'infinity'],
      ['email', 'ada@example.com'],
      ['firstName', null],
    ] as const) {
      const cursor = encodeCursor(field, -1, filters, { value, id, page: 3 });
      expect(decodeCursor(cursor, field, -1, filters)).toEqual({ value, id, page: 3 });
    }
  });

  it.each([
    ['a value that is not a time', 'updatedAt', { v: 'yesterday' }],
    ['February 30th', 'updatedAt', { v: '2026-02-30 00:00:00+00' }],
    ['February 29th of a common year', 'ps_converted_at', { v: '2025-02-29 00:00:00+00' }],
    ['hour 24', 'updatedAt', { v: '2026-01-01 24:00:00+00' }],
    ['month 13', 'updatedAt', { v: '2026-13-01 00:00:00+00' }],
    ['an offset of 16 hours', 'updatedAt', { v: '2026-01-01 00:00:00+16' }],
    ['a year past timestamptz', 'updatedAt', { v: '294276-12-31 23:00:00-05' }],
    ['a year before timestamptz', 'updatedAt', { v: '5000-01-01 00:00:00+00 BC' }],
    ['a time without zone', 'updatedAt', { v: '2026-01-01 00:00:00' }],
    ['a NUL in a text value', 'email', { v: 'a\u0000b' }],
    ['a number value', 'email', { v: 5 }],
    ['a value of 401 characters', 'email', { v: 'x'.repeat(401) }],
    ['an id that is no uuid', 'email', { i: "1' OR '1'='1" }],
    ['page 0', 'email', { p: 0 }],
    ['a fractional page', 'email', { p: 1.5 }],
    ['a page past safe integers', 'email', { p: 2 ** 60 }],
  ] as const)('refuses %s with a 400 naming cursor', (_, field, members) => {
    expect(refusal(() => decodeCursor(forged(field, members), field, -1, filters))).toMatch(/^cursor /);
  });

  it('refuses text that is no cursor at all', () => {
    for (const text of ['', '!!!!', 'bnVsbA', 'W10', 'eyJ', Buffer.from('"x"').toString('base64url')])
      expect(refusal(() => decodeCursor(text, 'email', -1, filters))).toMatch(/^cursor /);
  });

  it('refuses random forgeries of every member, never answering anything but a position or a 400', () => {
    const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)];
    const values = [null, 1, true, {}, [], '', '2026-01-01 00:00:00+00', 'x'.repeat(500), '\u0000', '\ud800'];
    for (let i = 0; i < 2_000; i++) {
      const field = pick(['updatedAt', 'ps_converted_at', 'email', 'lastName'] as const);
      const members = {
        v: Math.random() < 0.5 ? pick(values) : String.fromCharCode(...randomCodes()),
        i: pick([id, 'x', null, 7]),
        p: pick([1, 0, -1, 2.5, '1', null, Number.MAX_SAFE_INTEGER]),
      };
      const outcome = refusal(() => decodeCursor(forged(field, members), field, -1, filters));
      expect(outcome === 'accepted' || outcome.startsWith('cursor ')).toBe(true);
    }
  });
});

function randomCodes(): number[] {
  return Array.from({ length: Math.floor(Math.random() * 30) }, () => Math.floor(Math.random() * 0x3000));
}
