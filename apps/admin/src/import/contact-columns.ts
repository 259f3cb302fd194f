import { ValidationError } from '@app/core';
import { ADDRESS_FIELDS, STANDARD_FIELDS } from '@app/contacts';

/** A CSV column's place in a contact: a standard field, an address part or a custom property. */
export type ColumnTarget =
  | { kind: 'field'; name: string }
  | { kind: 'address'; name: string }
  | { kind: 'property'; name: string }
  | { kind: 'ignored' };

const ADDRESS = new Set<string>(ADDRESS_FIELDS);
const FIELDS = new Set<string>(STANDARD_FIELDS.filter((field) => !ADDRESS.has(field)));
// Contact members the service sets (as an export writes them): read back, never written.
const READ_ONLY = /^(id|createdAt|updatedAt|meta\.[^.]+|utmParams\.[^.]+)$/;

/**
 * Where a column goes, named as the export names its columns: `email`, `firstName`, `address.city`,
 * `properties.plan`. An empty name ignores the column.
 */
export function parseTarget(name: string): ColumnTarget | undefined {
  if (name === '' || READ_ONLY.test(name)) return { kind: 'ignored' };
  if (FIELDS.has(name)) return { kind: 'field', name };
  const [prefix, rest] = [name.slice(0, name.indexOf('.')), name.slice(name.indexOf('.') + 1)];
  if (prefix === 'address' && ADDRESS.has(rest)) return { kind: 'address', name: rest };
  if (prefix === 'properties' && rest) return { kind: 'property', name: rest };
  return undefined;
}

/** `--map "E-Mail=email,Plan=properties.plan"`: CSV column → contact member, added to `previous`. */
export function parseColumnMap(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const map = { ...previous };
  for (const pair of value.split(',')) {
    if (!pair.trim()) continue;
    const separator = pair.lastIndexOf('=');
    if (separator <= 0) throw new ValidationError(`--map entry "${pair}" must be Column=member`);
    const [column, target] = [pair.slice(0, separator).trim(), pair.slice(separator + 1).trim()];
    if (!parseTarget(target)) throw new ValidationError(`--map entry "${pair}": ${unknownMember(target)}`);
    map[column] = target;
  }
  return map;
}

const unknownMember = (name: string) =>
  `"${name}" is not a contact member (${[...FIELDS].join(', ')}, address.<${ADDRESS_FIELDS.join('|')}>, ` +
  'properties.<name>, or nothing to ignore the column)';

/**
 * The target of every header column, through `map` first. A column that names no contact member
 * and is not mapped refuses the whole file before anything is written, so a typo loses nothing.
 */
export function columnTargets(header: string[], map: Record<string, string>): ColumnTarget[] {
  const unmapped = Object.keys(map).filter((column) => !header.includes(column));
  if (unmapped.length) {
    throw new ValidationError(`--map names columns the file does not have: ${unmapped.join(', ')}`);
  }
  const targets = header.map((column) => parseTarget(map[column] ?? column.trim()));
  const unknown = header.filter((_, i) => !targets[i]);
  if (unknown.length) {
    throw new ValidationError(
      `columns ${unknown.map((c) => `"${c}"`).join(', ')} name no contact member: map them with ` +
        '--map "Column=member" (e.g. "E-Mail=email", "Plan=properties.plan") or ignore them with "Column="',
    );
  }
  const seen = new Map<string, string>();
  header.forEach((column, i) => {
    const target = targets[i]!;
    if (target.kind === 'ignored') return;
    const key = `${target.kind}:${target.name}`;
    if (seen.has(key))
      throw new ValidationError(`columns "${seen.get(key)}" and "${column}" fill the same member`);
    seen.set(key, column);
  });
  return targets as ColumnTarget[];
}

/** The create/upsert body of one row: its non-empty cells, each at its target. */
export function contactOfRow(cells: string[], targets: ColumnTarget[]): Record<string, unknown> {
  const contact: Record<string, unknown> = {};
  const address: Record<string, string> = {};
  const properties: Record<string, string> = {};
  targets.forEach((target, i) => {
    const value = cells[i]?.trim();
    if (!value || target.kind === 'ignored') return;
    if (target.kind === 'field') contact[target.name] = value;
    else if (target.kind === 'address') address[target.name] = value;
    else properties[target.name] = value;
  });
  if (Object.keys(address).length) contact.address = address;
  if (Object.keys(properties).length) contact.properties = properties;
  return contact;
}

/** The columns the import does not write, for the summary. */
export const ignoredColumns = (header: string[], targets: ColumnTarget[]): string[] =>
  header.filter((_, i) => targets[i].kind === 'ignored');
