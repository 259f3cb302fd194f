/* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand, before anything it patches */
import type { NodeSDK } from '@opentelemetry/sdk-node';

// Spans of probes and scrapes would drown the ones worth reading.
const UNTRACED_PATHS = /^\/health(?:\/live)?\/?(?:\?|$)/;

/**
 * OpenTelemetry, when OTEL_EXPORTER_OTLP_ENDPOINT names an OTLP/HTTP collector: spans of incoming
 * HTTP requests (named by route template), outgoing ones (webhooks, JWKS) and PostgreSQL queries,
 * and the trace id on every log line. The SDK is required only then, and before http, pg and pino
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
        // Express is loaded as ESM by Nest, out of reach of its instrumentation's require hook:
        // the server span gets the route template from the request Express routed.
        applyCustomAttributesOnSpan: (span, request) => {
          const { method, route } = request as { method?: string; route?: { path?: unknown } };
          if (typeof route?.path !== 'string') return;
          span.setAttribute('http.route', route.path);
          span.updateName(`${method} ${route.path}`);
        },
      }),
      new PgInstrumentation(),
      new PinoInstrumentation(),
    ],
  });
  sdk.start();
  return sdk;
}

export const tracing = startTracing();
