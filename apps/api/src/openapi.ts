import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildOpenApiDocument, validateEnv } from '@app/core';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';

/**
 * The OpenAPI document of the app, built from the controllers and DTOs alone: the app is created
 * in preview mode (no provider runs, so no database or Redis is needed) with a fixed environment,
 * so the result depends on the code only.
 */
export async function generateOpenApiDocument(): Promise<OpenAPIObject> {
  const env = validateEnv({ NODE_ENV: 'test' });
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({ databaseUrl: 'postgres://openapi@localhost/unused', env }),
    { preview: true, logger: false, bodyParser: false, abortOnError: false },
  );
  try {
    configureApp(app, env);
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}

/** The committed form of the document (openapi.json): stable key order, two-space indent. */
export function serializeOpenApi(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
