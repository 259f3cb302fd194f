/** The answers of the Citus comparison's traffic, and how two runs' answers are made comparable. */

/** One call of the traffic and what it answered, ids and times replaced by their order of appearance. */
export interface Answer {
  call: string;
  status: number;
  body: unknown;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const RECEIVER = /127\.0\.0\.1:\d+/g;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})/g;
// Opaque values that carry ids or times, or are random: list cursors, secrets, keys, key prefixes.
const OPAQUE = new Set(['nextCursor', 'secret', 'signingSecret', 'key', 'apiKey', 'prefix']);

export const withoutIdsOrTimes = (value: unknown) =>
  JSON.stringify(value).replace(UUID, '').replace(TIME, '');

/** Replaces every id by `id#n` (n its order of first appearance) and every time by `<time>`, recursively. */
export function normalise(value: unknown, ids = new Map<string, string>()): unknown {
  if (typeof value === 'string')
    return value
      .replace(UUID, (id) => {
        const key = id.toLowerCase();
        if (!ids.has(key)) ids.set(key, `id#${ids.size}`);
        return ids.get(key)!;
      })
      .replace(TIME, '<time>')
      .replace(RECEIVER, '127.0.0.1:<port>');
  if (Array.isArray(value)) return value.map((v) => normalise(v, ids));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, OPAQUE.has(k) && v ? '<opaque>' : normalise(v, ids)]),
    );
  return value;
}
