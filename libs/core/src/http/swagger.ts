import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, OperationObject, SwaggerModule } from '@nestjs/swagger';
import { completeErrorResponses } from './openapi-errors';

export const API_KEY_SECURITY = 'api-key';
export const BEARER_SECURITY = 'oauth-bearer';

/** The OpenAPI document generated from the controllers and DTOs. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Funnel CRM and Metrics API')
    .setDescription(
      [
        'REST API for funnel contacts and metrics, addressed by API key (`x-service-api-key`).',
        'Every error body is `{"error": "<message>", "status": <code>}`; validation errors add `details` ' +
          '(every problem found). Unknown routes answer 404 in the same shape, a malformed JSON body 400, ' +
          'a body over 100 kB 413. A funnel or contact that does not exist or belongs to another company ' +
          'answers 404; an id that is not a UUID answers 400.',
        'Rate limits: `RATE_LIMIT_PER_MINUTE` (default 100) requests a minute per API key across all `/v1` ' +
          'routes, in fixed one-minute windows. Responses carry `RateLimit-Limit`, `RateLimit-Remaining` and ' +
          '`RateLimit-Reset` (seconds until the window ends); a 429 adds `Retry-After` and the body ' +
          '`{"error":"Rate limit exceeded","status":429,"retryAfter":<seconds>}`. Unauthenticated routes ' +
          '(OAuth discovery, registration, authorize) allow 60 requests a minute per client address; `POST /mcp` ' +
          'allows `RATE_LIMIT_PER_MINUTE` per bearer token. Every spelling of a path the router accepts ' +
          '(case, trailing slash, encoded parameters) counts as the route. After `AUTH_FAILURES_PER_MINUTE` ' +
          '(default 30) refused keys or tokens in a minute, a client address gets 429 on authenticated routes ' +
          'until the window ends.',
        'Call `GET /v1/workspaces` first and use a campaign id as `funnelId`.',
      ].join('\n\n'),
    )
    .setVersion('1.0')
    // The base URL depends on the deployment: the API is served beside this document.
    .addServer('/', 'The service that serves this document')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-service-api-key' }, API_KEY_SECURITY)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'OAuth 2.0 access token (RS256 JWT) from the identity provider; POST /mcp only',
      },
      BEARER_SECURITY,
    )
    .build();
  return declareSecurity(completeErrorResponses(SwaggerModule.createDocument(app, config)));
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

/**
 * An operation naming no security scheme is `@Public()` (the API-key guard refuses every other
 * route, and a test walks them all): it says so with `security: []`, as generators and linters
 * expect, rather than leaving it unsaid.
 */
function declareSecurity(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as OperationObject | undefined;
      if (operation && !operation.security?.length) operation.security = [];
    }
  }
  return document;
}

/** Swagger UI at /docs and the OpenAPI JSON at /docs-json. */
export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true },
  });
}
