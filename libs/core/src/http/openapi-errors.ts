import { applyDecorators, Type } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';

export const ERROR_SCHEMA = 'ErrorResponse';
export const RATE_LIMIT_ERROR_SCHEMA = 'RateLimitErrorResponse';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

const SCHEMAS: Record<string, SchemaObject> = {
  [ERROR_SCHEMA]: {
    type: 'object',
    description: 'The body of every REST error.',
    required: ['error', 'status'],
    properties: {
      error: {
        type: 'string',
        description: 'Human-readable message',
        example: 'limit must not be greater than 100',
      },
      status: { type: 'integer', description: 'The HTTP status code', example: 400 },
      details: {
        type: 'array',
        items: { type: 'string' },
        description: 'Every validation problem (validation errors only)',
        example: ['limit must not be greater than 100'],
      },
    },
  },
  [RATE_LIMIT_ERROR_SCHEMA]: {
    type: 'object',
    required: ['error', 'status', 'retryAfter'],
    properties: {
      error: { type: 'string', example: 'Rate limit exceeded' },
      status: { type: 'integer', example: 429 },
      retryAfter: { type: 'integer', description: 'Seconds until the window resets', example: 42 },
    },
  },
};

const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'RateLimit-Limit': {
    description: 'Requests allowed in the current one-minute window',
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the current window ends', schema: { type: 'integer' } },
};

const RETRY_AFTER: HeaderObject = {
  description: 'Seconds until a request is accepted again',
  schema: { type: 'integer' },
};

const EXAMPLES: Record<string, { error: string; status: number }> = {
  '400': { error: 'Validation failed', status: 400 },
  '401': { error: 'API key is required', status: 401 },
  '404': { error: 'Funnel not found', status: 404 },
  '409': { error: 'Conflict', status: 409 },
  '413': { error: 'Request body too large (limit 100 kB)', status: 413 },
  '422': { error: 'Unprocessable request', status: 422 },
  '500': { error: 'Internal server error', status: 500 },
  '503': { error: 'Service unavailable', status: 503 },
};

const DEFAULT_DESCRIPTIONS: Record<string, string> = {
  '400': 'Malformed JSON body or validation failure',
  '413': 'Request body larger than 100 kB',
  '500': 'Internal server error; the body never shows internals',
};

type Responses = Record<string, ResponseObject | ReferenceObject>;

/** What a route documents of one error: why it happens and, optionally, the messages it answers. */
export interface ErrorResponseDoc {
  description: string;
  /** One example each; 400s carry the message in `details` too, as validation errors do. */
  examples?: readonly string[];
  /** A body other than the standard one (protocol errors: OAuth, JSON-RPC), as a schema or a DTO. */
  schema?: SchemaObject | ReferenceObject;
  type?: Type<unknown>;
}

/** The 429 of a route whose work is long work (LongWork): the company's places, or all of them, are taken. */
export const LONG_WORK_REFUSED: ErrorResponseDoc = {
  description:
    'More than RATE_LIMIT_PER_MINUTE requests a minute with this API key; or this company already runs ' +
    'DATABASE_LONG_WORK_PER_COMPANY (default 2) long-running requests (exports, searches, property ' +
    'definition changes), or every place for them is taken: send it again after Retry-After',
};

/**
 * The one way a route declares its error responses, by status. Without examples or schema the
 * response gets the standard body and a generic example when the document is completed.
 */
export const ApiErrorResponses = (responses: Record<number, ErrorResponseDoc>) =>
  applyDecorators(...Object.entries(responses).map(([status, doc]) => errorResponse(Number(status), doc)));

function errorResponse(status: number, { description, examples, schema, type }: ErrorResponseDoc) {
  if (type) return ApiResponse({ status, description, type });
  if (schema) return ApiResponse({ status, description, content: { 'application/json': { schema } } });
  if (!examples?.length) return ApiResponse({ status, description });
  return ApiResponse({
    status,
    description,
    content: {
      'application/json': {
        schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` },
        examples: Object.fromEntries(
          examples.map((error) => [
            error
              .replace(/[^A-Za-z0-9]+/g, '-')
              .replace(/^-|-$/g, '')
              .slice(0, 60),
            {
              summary: error,
              value: status === 400 ? { error, status, details: [error] } : { error, status },
            },
          ]),
        ),
      },
    },
  });
}

/**
 * Completes every operation with the responses every route can give (500; 429 where a rate limit
 * applies; 400 and 413 where there is a body; 503 on /v1) and gives each error response the standard body
 * schema, so a route only documents what is particular to it.
 */
export function completeErrorResponses(document: OpenAPIObject): OpenAPIObject {
  document.components = document.components ?? {};
  document.components.schemas = { ...document.components.schemas, ...SCHEMAS };

  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as OperationObject | undefined;
      if (!operation) continue;
      const responses = operation.responses as Responses;
      // /v1 routes count per API key; `@Public()` routes document their own 429 (per address).
      const limited = /^\/v\d+\//.test(path) || '429' in responses;

      if (operation.requestBody) {
        responses['400'] ??= { description: DEFAULT_DESCRIPTIONS['400'] };
        responses['413'] ??= { description: DEFAULT_DESCRIPTIONS['413'] };
      }
      if (limited) {
        const tooMany = (responses['429'] ?? {}) as ResponseObject;
        responses['429'] = {
          ...tooMany,
          description:
            tooMany.description ??
            'More requests than RATE_LIMIT_PER_MINUTE (default 100) a minute with this API key, or more ' +
              'refused keys than AUTH_FAILURES_PER_MINUTE (default 30) a minute from this client address',
          headers: { 'Retry-After': RETRY_AFTER, ...RATE_LIMIT_HEADERS, ...tooMany.headers },
          content: tooMany.content ?? {
            'application/json': {
              schema: { $ref: `#/components/schemas/${RATE_LIMIT_ERROR_SCHEMA}` },
              example: { error: 'Rate limit exceeded', status: 429, retryAfter: 42 },
            },
          },
        };
      }
      responses['500'] ??= { description: DEFAULT_DESCRIPTIONS['500'] };
      // Every /v1 route reads the database: an outage answers 503 with Retry-After, never 500.
      if (/^\/v\d+\//.test(path)) {
        responses['503'] ??= {
          description: 'The database is unavailable or overloaded; send the request again after Retry-After',
          headers: { 'Retry-After': RETRY_AFTER },
        };
      }

      for (const [status, response] of Object.entries(responses)) {
        if ('$ref' in response) continue;
        if (!response.description) response.description = Number(status) < 400 ? 'Success' : 'Error';
        if (Number(status) >= 400 && !response.content) {
          response.content = {
            'application/json': {
              schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` },
              example: EXAMPLES[status] ?? { error: response.description, status: Number(status) },
            },
          };
        }
        if (limited && Number(status) < 400)
          response.headers = { ...RATE_LIMIT_HEADERS, ...response.headers };
      }
      operation.responses = sortByStatus(responses);
    }
  }
  return document;
}

function sortByStatus(responses: Responses): Responses {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}
