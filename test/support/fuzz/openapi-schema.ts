import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of an OpenAPI 3 schema the generated suite reads. */
export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  example?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  nullable?: boolean;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  /** Documented statuses, each with its body schema when one is given. */
  responses: Record<string, Schema | undefined>;
  security: 'api-key' | 'bearer' | 'none';
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, Schema> };
}

export function loadOpenApi(): OpenApiDocument {
  return JSON.parse(
    readFileSync(join(__dirname, '..', '..', '..', 'openapi.json'), 'utf8'),
  ) as OpenApiDocument;
}

/** Every operation of the document, in document order. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, raw]) => {
      const op = raw as {
        parameters?: Parameter[];
        requestBody?: { content?: Record<string, { schema?: Schema }> };
        responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
        security?: Record<string, unknown>[];
      };
      const scheme = Object.keys(op.security?.[0] ?? {})[0];
      return {
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema,
        responses: Object.fromEntries(
          Object.entries(op.responses).map(([status, r]) => [
            status,
            r.content?.['application/json']?.schema,
          ]),
        ),
        security: scheme === 'api-key' ? 'api-key' : scheme ? 'bearer' : 'none',
      };
    }),
  );
}

/** The schema behind a $ref (and a single allOf), so readers see members directly. */
export function resolve(doc: OpenApiDocument, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 10; i++) {
    if (current.$ref)
      current = doc.components.schemas[current.$ref.replace('#/components/schemas/', '')] ?? {};
    else if (current.allOf?.length === 1 && !current.type)
      current = { ...current.allOf[0], allOf: undefined };
    else return current;
  }
  return current;
}

/**
 * The problems of `value` against `schema` (types, required members, enums; enough to tell a
 * documented body from another). Empty when it conforms.
 */
export function schemaProblems(
  doc: OpenApiDocument,
  schema: Schema | undefined,
  value: unknown,
  at = 'body',
): string[] {
  const s = resolve(doc, schema);
  if (value === null) return s.nullable ? [] : [`${at} is null`];
  if (s.oneOf) {
    return s.oneOf.some((option) => !schemaProblems(doc, option, value, at).length)
      ? []
      : [`${at} matches no oneOf`];
  }
  if (s.enum && !s.enum.includes(value)) return [`${at} is not one of ${s.enum.join(', ')}`];
  switch (s.type) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${at} is not an object`];
      const record = value as Record<string, unknown>;
      const missing = (s.required ?? [])
        .filter((name) => record[name] === undefined)
        .map((n) => `${at}.${n} is missing`);
      const members = Object.entries(s.properties ?? {}).flatMap(([name, member]) =>
        record[name] === undefined ? [] : schemaProblems(doc, member, record[name], `${at}.${name}`),
      );
      return [...missing, ...members];
    }
    case 'array':
      return Array.isArray(value)
        ? value.flatMap((item, i) => schemaProblems(doc, s.items, item, `${at}[${i}]`))
        : [`${at} is not an array`];
    case 'integer':
      return Number.isInteger(value) ? [] : [`${at} is not an integer`];
    case 'number':
      return typeof value === 'number' ? [] : [`${at} is not a number`];
    case 'string':
    case 'boolean':
      return typeof value === s.type ? [] : [`${at} is not a ${s.type}`];
    default:
      return [];
  }
}
