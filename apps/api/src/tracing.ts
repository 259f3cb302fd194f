/* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand, before anything it patches */
import { createRequire } from 'node:module';
import type { NodeSDK } from '@opentelemetry/sdk-node';

// Spans of probes and scrapes would drown the ones worth reading.
const UNTRACED_PATHS = /^\/health(?:\/live)?\/?(?:\?|$)/;

/**
 * OpenTelemetry, when OTEL_EXPORTER_OTLP_ENDPOINT names an OTLP/HTTP collector: spans of incoming
 * HTTP requests (named by route template) with Express's middleware and handler spans under them,
 * outgoing ones (webhooks, JWKS) and PostgreSQL queries, and the trace id on every log line. The SDK is required only then, and before http, pg and pino
 * are, so it can patch them:
 * main.ts imports this module first. Without the variable nothing is loaded.
 */
function startTracing(): NodeSDK | undefined {
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) return undefined;
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { PinoInstrumentation } =
    require('@opentelemetry/instrumentation-pino') as typeof import('@opentelemetry/instrumentation-pino');

  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME?.trim() || 'funnel-crm',
    // Endpoint, headers and timeout come from the standard OTEL_EXPORTER_OTLP_* variables.
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? ''),
        // The server span is named by the route template of the request Express routed.
        applyCustomAttributesOnSpan: (span, request) => {
          const { method, route } = request as { method?: string; route?: { path?: unknown } };
          if (typeof route?.path !== 'string') return;
          span.setAttribute('http.route', route.path);
          span.updateName(`${method} ${route.path}`);
        },
      }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
      new PinoInstrumentation(),
    ],
  });
  sdk.start();
  preloadExpress();
  return sdk;
}

/**
 * Nest's Express adapter is an ES module, and its `import` of Express (a CommonJS package) bypasses
 * the require hook the Express instrumentation patches through. Requiring Express here, from where
 * the adapter resolves it, loads it under the hook whatever else the app happens to load first; the
 * adapter's import then gets the same cached module, whose router and application are patched.
 */
function preloadExpress(): void {
  const adapterRequire = createRequire(require.resolve('@nestjs/platform-express'));
  adapterRequire('express');
}

export const tracing = startTracing();
