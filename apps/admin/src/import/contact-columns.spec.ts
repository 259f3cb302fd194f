import { ValidationError } from '@app/core';
import { columnTargets, contactOfRow, ignoredColumns, parseColumnMap } from './contact-columns';

describe('contact import columns', () => {
  describe(parseColumnMap.name, () => {
    it('reads Column=member pairs, adding to the earlier --map values', () => {
      expect(parseColumnMap('E-Mail=email, Plan=properties.plan', { Ort: 'address.city' })).toEqual({
        Ort: 'address.city',
        'E-Mail': 'email',
        Plan: 'properties.plan',
      });
    });

    it('maps a column to nothing to ignore it', () => {
      expect(parseColumnMap('Notes=')).toEqual({ Notes: '' });
    });

    it('refuses a pair without = and a member that is not a contact member', () => {
      expect(() => parseColumnMap('E-Mail')).toThrow('--map entry "E-Mail" must be Column=member');
      expect(() => parseColumnMap('E-Mail=mail')).toThrow(/"mail" is not a contact member/);
      expect(() => parseColumnMap('Town=address.town')).toThrow(ValidationError);
    });
  });

  describe(columnTargets.name, () => {
    it('takes the names of the export as they are and the mapped ones through the map', () => {
      const header = [
        'E-Mail',
        'firstName',
        'address.city',
        'properties.plan',
        'id',
        'meta.ps_source',
        'Notes',
      ];
      const targets = columnTargets(header, { 'E-Mail': 'email', Notes: '' });
      expect(targets).toEqual([
        { kind: 'field', name: 'email' },
        { kind: 'field', name: 'firstName' },
        { kind: 'address', name: 'city' },
        { kind: 'property', name: 'plan' },
        { kind: 'ignored' },
        { kind: 'ignored' },
        { kind: 'ignored' },
      ]);
      expect(ignoredColumns(header, targets)).toEqual(['id', 'meta.ps_source', 'Notes']);
    });

    it('refuses a file with a column that names no member, naming it', () => {
      expect(() => columnTargets(['email', 'Vorname'], {})).toThrow(
        /columns "Vorname" name no contact member/,
      );
    });

    it('refuses a --map of a column the file does not have', () => {
      expect(() => columnTargets(['email'], { 'E-Mail': 'email' })).toThrow(
        '--map names columns the file does not have: E-Mail',
      );
    });

    it('refuses two columns filling the same member', () => {
      expect(() => columnTargets(['email', 'E-Mail'], { 'E-Mail': 'email' })).toThrow(
        'columns "email" and "E-Mail" fill the same member',
      );
    });
  });

  describe(contactOfRow.name, () => {
    it('builds the body of a row from its non-empty cells, address parts and properties nested', () => {
      const targets = columnTargets(
        ['email', 'phone', 'address.city', 'address.street', 'properties.plan', 'id'],
        {},
      );
      expect(contactOfRow([' ada@example.com ', '', 'Berlin', '', 'pro', 'x'], targets)).toEqual({
        email: 'ada@example.com',
        address: { city: 'Berlin' },
        properties: { plan: 'pro' },
      });
    });
  });
});
