import type { McpServer, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

// The keywords that only apply to one type: a type list split into anyOf takes each to its branch.
const TYPE_KEYWORDS: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  object: ['properties', 'required', 'additionalProperties'],
};

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const saysOnlyString = (value: unknown) =>
  isSchema(value) && value.type === 'string' && Object.keys(value).length === 1;

/**
 * A tool's input schema as every host accepts it: hosts that forward schemas to Gemini refuse
 * `$schema`, `propertyNames` and type lists, so the root loses `$schema`, a record's
 * `propertyNames: {type: "string"}` (JSON keys are strings anyway) is dropped, a type list becomes
 * `anyOf` of single types, and zod's "any safe integer" bounds, which say nothing, go.
 */
export function hostSafeJsonSchema(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return clean(rest);
}

function clean(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'propertyNames' && saysOnlyString(value)) continue;
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = cleanValue(key, value);
  }
  return Array.isArray(out.type) ? splitTypeList(out, out.type as string[]) : out;
}

function cleanValue(key: string, value: unknown): unknown {
  if (key === 'properties' || key === '$defs')
    return isSchema(value)
      ? Object.fromEntries(Object.entries(value).map(([name, entry]) => [name, cleanEntry(entry)]))
      : value;
  if (key === 'items' || key === 'additionalProperties') return cleanEntry(value);
  if (key === 'anyOf' || key === 'oneOf' || key === 'allOf')
    return Array.isArray(value) ? value.map(cleanEntry) : value;
  return value;
}

const cleanEntry = (entry: unknown) => (isSchema(entry) ? clean(entry) : entry);

/** `{type: ["string", "null"], maxLength: 5}` → `{anyOf: [{type: "string", maxLength: 5}, {type: "null"}]}`. */
function splitTypeList(schema: JsonSchema, types: string[]): JsonSchema {
  const { type: _types, ...rest } = schema;
  const owned = new Set(types.flatMap((type) => TYPE_KEYWORDS[type] ?? []));
  const shared = Object.fromEntries(Object.entries(rest).filter(([key]) => !owned.has(key)));
  const branch = (type: string) => ({
    type,
    ...Object.fromEntries(
      (TYPE_KEYWORDS[type] ?? []).filter((key) => key in rest).map((key) => [key, rest[key]]),
    ),
  });
  return { ...shared, anyOf: types.map(branch) };
}

/**
 * The arguments of a tool as one closed zod object: an argument the tool does not take is refused
 * (naming it) as REST refuses an unknown property, and the listed schema says
 * `additionalProperties: false`, which strict-mode hosts need. Validation is zod's; only the
 * listed JSON Schema is made host-safe.
 */
export function toolInput(shape: z.ZodRawShape): StandardSchemaWithJSON {
  const schema = z.strictObject(shape);
  const standard = schema['~standard'];
  return {
    '~standard': {
      ...standard,
      jsonSchema: {
        input: (options) => hostSafeJsonSchema(standard.jsonSchema.input(options)),
        output: (options) => hostSafeJsonSchema(standard.jsonSchema.output(options)),
      },
    },
  } as StandardSchemaWithJSON;
}

/**
 * Makes every tool registered on `server` list and check its arguments by {@link toolInput}: the
 * tools keep declaring plain zod shapes, the host-facing rules live here once.
 */
export function enforceToolInputRules(server: McpServer): void {
  const register = server.registerTool.bind(server) as (...args: unknown[]) => unknown;
  server.registerTool = ((name: string, config: { inputSchema?: z.ZodRawShape }, callback: unknown) =>
    register(
      name,
      config.inputSchema ? { ...config, inputSchema: toolInput(config.inputSchema) } : config,
      callback,
    )) as McpServer['registerTool'];
}
