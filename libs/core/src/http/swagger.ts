import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

export const API_KEY_SECURITY = 'api-key';
export const BEARER_SECURITY = 'oauth-bearer';

/** The OpenAPI document generated from the controllers and DTOs. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Funnel CRM and Metrics API')
    .setDescription(
      [
        'REST API for funnel contacts and metrics, addressed by API key (`x-service-api-key`).',
        'Every error body is `{"error": "<message>", "status": <code>}`; validation errors add `details`.',
        'Call `GET /v1/workspaces` first and use a campaign id as `funnelId`.',
      ].join('\n\n'),
    )
    .setVersion('1.0')
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
  return SwaggerModule.createDocument(app, config);
}

/** Swagger UI at /docs and the OpenAPI JSON at /docs-json. */
export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true },
  });
}
