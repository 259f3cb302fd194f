import fc from 'fast-check';
import { OpenApiDocument, Operation, Parameter, resolve, Schema } from './openapi-schema';

export type Auth = 'ok' | 'none' | 'invalid' | 'weak';

/** One generated request, before it is sent. */
export interface Draft {
  /** 'valid' or the hostile mutation applied (for the suite's tally). */
  mutation: string;
  pathParams: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body?: string;
  auth: Auth;
}

/** Ids the fixtures created: by path parameter name (`funnelId`), and another company's. */
export interface FuzzIds {
  own: Record<string, string[]>;
  foreign: string[];
}

const MAX_DEPTH = 4;
const nested = (levels: number) => `${'['.repeat(levels)}0${']'.repeat(levels)}`;
const date = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2027-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

/** A value the schema describes (it may still break a rule the schema cannot say). */
export function validValue(
  doc: OpenApiDocument,
  raw: Schema | undefined,
  ids: string[],
  depth = 0,
): fc.Arbitrary<unknown> {
  const s = resolve(doc, raw);
  if (s.enum?.length) return fc.constantFrom(...s.enum);
  if (depth > MAX_DEPTH) return fc.constant('x');
  switch (s.type) {
    case 'object': {
      const members = Object.fromEntries(
        Object.entries(s.properties ?? {}).map(([name, member]) => [
          name,
          validValue(doc, member, ids, depth + 1),
        ]),
      );
      return fc.record(members, { requiredKeys: (s.required ?? []).filter((n) => n in members) });
    }
    case 'array':
      return fc.array(validValue(doc, s.items, ids, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 3, 3)),
      });
    case 'integer':
    case 'number':
      return fc.integer({ min: s.minimum ?? -1000, max: Math.min(s.maximum ?? 100_000, 2 ** 31) });
    case 'boolean':
      return fc.boolean();
    default:
      return validText(s, ids);
  }
}

function validText(s: Schema, ids: string[]): fc.Arbitrary<string> {
  const examples = typeof s.example === 'string' ? [fc.constant(s.example)] : [];
  switch (s.format) {
    case 'uuid':
      return ids.length ? fc.constantFrom(...ids) : fc.uuid();
    case 'date-time':
      return date;
    case 'date':
      return date.map((d) => d.slice(0, 10));
    case 'email':
      return fc.oneof(fc.emailAddress(), ...examples);
    case 'uri':
      return fc.oneof(fc.webUrl(), ...examples);
    default:
      return fc.oneof(fc.string({ minLength: 1, maxLength: Math.min(s.maxLength ?? 30, 30) }), ...examples);
  }
}

/** Values no member should accept as they are, or that test the edges of text and numbers. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1.5, 1e308, [], {}, [[]], '', ' '),
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'a\udc00', '\ud83d', '\ufeff', '😀'.repeat(50)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 1_000, max: 60_000 }).map((n) => 'x'.repeat(n)),
  fc.constantFrom('__proto__', 'constructor', 'toString', "' OR 1=1 --", '../../etc/passwd', '{{7*7}}'),
);

const hostileQueryValue = fc.oneof(
  fc.constantFrom(
    '',
    'abc',
    '-1',
    '0',
    '1e3',
    '1.5',
    '99999999999999999999',
    ' 1',
    '0x10',
    'NaN',
    'Infinity',
  ),
  fc.constantFrom(
    '2025-13-45',
    '2025-02-30T00:00:00Z',
    '0000-00-00',
    'not a date',
    '2025-01-01T25:00:00Z',
    '1',
  ),
  fc.constantFrom('+99999', '-841', '841', '1e9', '++1', '-0', '+-1', '+60.5', '-120'),
  fc.constantFrom('\u0000', 'a\ud800', '😀', 'chart_unknown', 'all', 'variant', 'question_0'),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer({ min: 100, max: 4_000 }).map((n) => 'q'.repeat(n)),
);

const hostilePathValue = (ids: FuzzIds) =>
  fc.oneof(
    fc.constantFrom(...ids.foreign),
    fc.uuid(),
    fc.constantFrom('not-a-uuid', '0', '..', '%00', 'a'.repeat(300), '__proto__', 'constructor', '😀', ' '),
    fc.constantFrom(
      ...Object.values(ids.own)
        .flat()
        .map((id) => id.toUpperCase()),
    ),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
  );

// Appended last, so it wins over a member of the same name (JSON.parse keeps the last one).
function withMember(base: string | undefined, name: string, value: string): string {
  const head = base && base.startsWith('{') && base !== '{}' ? `${base.slice(0, -1)},` : '{';
  return `${head}${JSON.stringify(name)}:${value}}`;
}

/** A request built from the operation's documented parameters and body. */
export function validDraft(doc: OpenApiDocument, op: Operation, ids: FuzzIds): fc.Arbitrary<Draft> {
  const param = (p: Parameter) => {
    const own = ids.own[p.name] ?? Object.values(ids.own).flat();
    return validValue(doc, p.schema, own).map(String);
  };
  const path = op.parameters.filter((p) => p.in === 'path');
  const query = op.parameters.filter((p) => p.in === 'query');
  return fc
    .record({
      pathParams: fc.record(Object.fromEntries(path.map((p) => [p.name, param(p)]))),
      query: fc.tuple(
        ...query.map((p) =>
          p.required ? param(p).map((v) => [p.name, v]) : fc.option(param(p).map((v) => [p.name, v])),
        ),
      ),
      body: op.body
        ? validValue(doc, op.body, Object.values(ids.own).flat()).map((b) => JSON.stringify(b))
        : fc.constant(undefined),
    })
    .map(({ pathParams, query: pairs, body }) => ({
      mutation: 'valid',
      pathParams: pathParams as Record<string, string>,
      query: pairs.filter((pair): pair is [string, string] => Array.isArray(pair)),
      headers: {},
      body,
      auth: 'ok' as Auth,
    }));
}

/** The valid request with one hostile change, chosen among those that apply to the operation. */
export function hostileDraft(doc: OpenApiDocument, op: Operation, ids: FuzzIds): fc.Arbitrary<Draft> {
  const base = validDraft(doc, op, ids);
  const pathNames = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const queryNames = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const bodyNames = Object.keys(resolve(doc, op.body).properties ?? {});
  const mutations: fc.Arbitrary<Draft>[] = [
    fc
      .tuple(
        base,
        fc.constantFrom(...[...queryNames, 'unknown', '__proto__', 'constructor', 'toString']),
        hostileQueryValue,
      )
      .map(([d, name, value]) => ({
        ...d,
        mutation: 'query value',
        query: [...d.query.filter(([n]) => n !== name), [name, value]] as [string, string][],
      })),
    fc
      .tuple(base, fc.constantFrom(...[...queryNames, 'page']), hostileQueryValue, hostileQueryValue)
      .map(([d, name, a, b]) => ({
        ...d,
        mutation: 'duplicate query parameter',
        query: [...d.query, [name, a], [name, b]] as [string, string][],
      })),
  ];
  if (op.security !== 'none') {
    mutations.push(
      fc
        .tuple(base, fc.constantFrom<Auth>('none', 'invalid', 'weak'))
        .map(([d, auth]) => ({ ...d, mutation: `credentials ${auth}`, auth })),
    );
  }
  if (pathNames.length) {
    mutations.push(
      fc.tuple(base, fc.constantFrom(...pathNames), hostilePathValue(ids)).map(([d, name, value]) => ({
        ...d,
        mutation: ids.foreign.includes(value) ? 'foreign id' : 'path value',
        pathParams: { ...d.pathParams, [name]: value },
      })),
    );
  }
  if (op.parameters.some((p) => p.in === 'header')) {
    const header = op.parameters.find((p) => p.in === 'header')!.name;
    mutations.push(
      fc
        .tuple(base, fc.constantFrom('', ' ', 'a b', 'x'.repeat(256), 'k'.repeat(255), '\t'))
        .map(([d, value]) => ({
          ...d,
          mutation: 'header value',
          headers: { [header]: value },
        })),
    );
  }
  if (op.body) {
    mutations.push(
      fc
        .tuple(base, fc.constantFrom('[]', '42', '"x"', 'null', 'true', '', '{', '{"a":1,}', "{'a':1}"))
        .map(([d, body]) => ({ ...d, mutation: 'body of the wrong kind', body })),
      fc.tuple(base, fc.constantFrom(...[...bodyNames, 'unknown']), hostileValue).map(([d, name, value]) => ({
        ...d,
        mutation: 'member of the wrong type or text',
        body: withMember(d.body, name, JSON.stringify(value)),
      })),
      fc
        .tuple(base, fc.constantFrom(...[...bodyNames, 'x']), fc.integer({ min: 33, max: 5_000 }))
        .map(([d, name, levels]) => ({
          ...d,
          mutation: 'deep nesting',
          body: withMember(d.body, name, nested(levels)),
        })),
      fc.tuple(base, fc.constantFrom('__proto__', 'constructor', 'prototype')).map(([d, name]) => ({
        ...d,
        mutation: 'prototype key',
        body: withMember(
          d.body,
          name,
          name === 'constructor' ? '{"prototype":{"polluted":true}}' : '{"polluted":true}',
        ),
      })),
      fc.tuple(base, fc.integer({ min: 101 * 1024, max: 1200 * 1024 })).map(([d, size]) => ({
        ...d,
        mutation: 'huge body',
        body: withMember(d.body, 'padding', JSON.stringify('p'.repeat(size))),
      })),
    );
  }
  return fc.oneof(...mutations);
}
