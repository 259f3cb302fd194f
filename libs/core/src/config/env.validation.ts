import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsUrl, Matches, Max, Min, validateSync } from 'class-validator';
import { AccessVariables } from './access-variables';
import { toInt, toBool, emptyToUndefined, URL_OPTIONS } from './env-values';

export { NODE_ENVS, OAUTH_MODES, UNSCOPED_TOKEN_POLICIES } from './env-values';
export type { NodeEnv, OAuthMode, UnscopedTokenPolicy } from './env-values';

/**
 * Every environment variable the service reads, with its default and rule (docs/CONFIGURATION.md
 * lists them): the service's own and sign-in's are inherited, automations, metrics and operations here.
 */
export class EnvironmentVariables extends AccessVariables {
  /** Webhook secrets are encrypted with this key (required once an automation has a secret in production). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, {
    message:
      'AUTOMATION_SECRET_KEY must be 32 bytes as 64 hex characters or base64 (openssl rand -base64 32)',
  })
  AUTOMATION_SECRET_KEY?: string;

  /** Email automations send through this server; unset, development uses a local catch-all mailbox. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^smtps?:\/\/[^\s]+$/, {
    message: 'SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtps://user:password@smtp.example.com:465',
  })
  SMTP_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^([^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, {
    message: 'MAIL_FROM must be an address, e.g. "Acme <hello@acme.example>" or hello@acme.example',
  })
  MAIL_FROM?: string;

  /** Pooled connections to SMTP_URL per process (most servers limit them per client). */
  @Transform(toInt)
  @IsInt({ message: 'SMTP_MAX_CONNECTIONS must be an integer between 1 and 50' })
  @Min(1, { message: 'SMTP_MAX_CONNECTIONS must be an integer between 1 and 50' })
  @Max(50, { message: 'SMTP_MAX_CONNECTIONS must be an integer between 1 and 50' })
  SMTP_MAX_CONNECTIONS: number = 5;

  /** SMS automations send through this gateway (a signed POST per message); unset, they only record. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/[^\s]+$/, {
    message: 'SMS_GATEWAY_URL must be an http(s) URL, e.g. https://sms-gateway.example.com/send',
  })
  SMS_GATEWAY_URL?: string;

  /** Signs the requests to the SMS gateway and verifies its status reports. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\S{32,}$/, { message: 'SMS_GATEWAY_SECRET must be at least 32 characters without spaces' })
  SMS_GATEWAY_SECRET?: string;

  // DKIM signing of sent email: all three or none.
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[A-Za-z0-9.-]+$/, { message: 'DKIM_DOMAIN must be a domain name' })
  DKIM_DOMAIN?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]+$/, { message: 'DKIM_SELECTOR must be a DNS label, e.g. mail2026' })
  DKIM_SELECTOR?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/-----BEGIN (RSA )?PRIVATE KEY-----/, {
    message: 'DKIM_PRIVATE_KEY must be a PEM private key (newlines may be written as \\n)',
  })
  DKIM_PRIVATE_KEY?: string;

  @Transform(toBool)
  @IsBoolean({ message: 'AUTOMATION_WORKER_ENABLED must be true or false' })
  AUTOMATION_WORKER_ENABLED: boolean = true;

  // Development and tests only: lets webhook subscriptions target loopback (a local receiver).
  @Transform(toBool)
  @IsBoolean({ message: 'WEBHOOK_ALLOW_LOOPBACK_TARGETS must be true or false' })
  WEBHOOK_ALLOW_LOOPBACK_TARGETS: boolean = false;

  @Transform(toInt)
  @IsInt({ message: 'AUTOMATION_POLL_INTERVAL_MS must be an integer of at least 10' })
  @Min(10, { message: 'AUTOMATION_POLL_INTERVAL_MS must be an integer of at least 10' })
  AUTOMATION_POLL_INTERVAL_MS: number = 1000;

  @Transform(toInt)
  @IsInt({ message: 'AUTOMATION_CONCURRENCY must be an integer between 1 and 100' })
  @Min(1, { message: 'AUTOMATION_CONCURRENCY must be an integer between 1 and 100' })
  @Max(100, { message: 'AUTOMATION_CONCURRENCY must be an integer between 1 and 100' })
  AUTOMATION_CONCURRENCY: number = 10;

  @Transform(toInt)
  @IsInt({ message: 'AUTOMATION_WEBHOOK_TIMEOUT_MS must be an integer of at least 100' })
  @Min(100, { message: 'AUTOMATION_WEBHOOK_TIMEOUT_MS must be an integer of at least 100' })
  AUTOMATION_WEBHOOK_TIMEOUT_MS: number = 10_000;

  @Transform(toInt)
  @IsInt({ message: 'AUTOMATION_LEASE_MS must be an integer of at least 1000' })
  @Min(1000, { message: 'AUTOMATION_LEASE_MS must be an integer of at least 1000' })
  AUTOMATION_LEASE_MS: number = 60_000;

  @Transform(toInt)
  @IsInt({ message: 'AUTOMATION_RETRY_BASE_MS must be a positive integer' })
  @Min(1, { message: 'AUTOMATION_RETRY_BASE_MS must be a positive integer' })
  AUTOMATION_RETRY_BASE_MS: number = 5_000;

  @Transform(toInt)
  @IsInt({ message: 'AUTOMATION_RETRY_MAX_MS must be a positive integer' })
  @Min(1, { message: 'AUTOMATION_RETRY_MAX_MS must be a positive integer' })
  AUTOMATION_RETRY_MAX_MS: number = 600_000;

  @Transform(toInt)
  @IsInt({ message: 'AUTOMATION_MAX_ATTEMPTS must be an integer between 1 and 100' })
  @Min(1, { message: 'AUTOMATION_MAX_ATTEMPTS must be an integer between 1 and 100' })
  @Max(100, { message: 'AUTOMATION_MAX_ATTEMPTS must be an integer between 1 and 100' })
  AUTOMATION_MAX_ATTEMPTS: number = 8;

  // Contacts whose number and date property values one chunk of the background copy reads.
  @Transform(toInt)
  @IsInt({ message: 'PROPERTY_VALUES_FILL_CHUNK must be an integer between 1 and 100000' })
  @Min(1, { message: 'PROPERTY_VALUES_FILL_CHUNK must be an integer between 1 and 100000' })
  @Max(100000, { message: 'PROPERTY_VALUES_FILL_CHUNK must be an integer between 1 and 100000' })
  PROPERTY_VALUES_FILL_CHUNK: number = 5000;

  // How often each process looks for property values to copy or remove (and at start).
  @Transform(toInt)
  @IsInt({ message: 'PROPERTY_VALUES_FILL_POLL_MS must be an integer of at least 10' })
  @Min(10, { message: 'PROPERTY_VALUES_FILL_POLL_MS must be an integer of at least 10' })
  PROPERTY_VALUES_FILL_POLL_MS: number = 5000;

  // How long before now the segment rollups are folded up to: later traffic is read raw, and
  // events arriving within it record no changes.
  @Transform(toInt)
  @IsInt({ message: 'SEGMENT_FOLD_LAG_SECONDS must be an integer between 0 and 86400' })
  @Min(0, { message: 'SEGMENT_FOLD_LAG_SECONDS must be an integer between 0 and 86400' })
  @Max(86400, { message: 'SEGMENT_FOLD_LAG_SECONDS must be an integer between 0 and 86400' })
  SEGMENT_FOLD_LAG_SECONDS: number = 120;

  // How often each process folds raw sessions and events into the segment rollups (and at start).
  @Transform(toInt)
  @IsInt({ message: 'SEGMENT_FOLD_POLL_MS must be an integer of at least 10' })
  @Min(10, { message: 'SEGMENT_FOLD_POLL_MS must be an integer of at least 10' })
  SEGMENT_FOLD_POLL_MS: number = 10000;

  // A step funnel over more sessions than this is read from a uniform sample of about this many
  // (flagged in the answer; `exact=true` reads all); 0 reads every session always.
  @Transform(toInt)
  @IsInt({ message: 'STEP_FUNNEL_SAMPLE_SESSIONS must be an integer of at least 0' })
  @Min(0, { message: 'STEP_FUNNEL_SAMPLE_SESSIONS must be an integer of at least 0' })
  STEP_FUNNEL_SAMPLE_SESSIONS: number = 50000;

  // Raw events are kept this many whole months before the current one; unset keeps them all.
  @Transform(({ value }) => toInt({ value: emptyToUndefined({ value }) }))
  @IsOptional()
  @IsInt({ message: 'EVENT_RETENTION_MONTHS must be an integer between 1 and 1200' })
  @Min(1, { message: 'EVENT_RETENTION_MONTHS must be an integer between 1 and 1200' })
  @Max(1200, { message: 'EVENT_RETENTION_MONTHS must be an integer between 1 and 1200' })
  EVENT_RETENTION_MONTHS?: number;

  // Prometheus metrics, on a port of their own so they never share the public one.
  @Transform(toInt)
  @IsInt({ message: 'METRICS_PORT must be an integer between 0 and 65535' })
  @Min(0, { message: 'METRICS_PORT must be an integer between 0 and 65535' })
  @Max(65535, { message: 'METRICS_PORT must be an integer between 0 and 65535' })
  METRICS_PORT: number = 9464;

  /**
   * After SIGTERM, readiness fails this long before the server stops taking connections
   * (default 5000 in production, 0 elsewhere).
   */
  @Transform(toInt)
  @IsOptional()
  @IsInt({ message: 'SHUTDOWN_DELAY_MS must be an integer between 0 and 60000' })
  @Min(0, { message: 'SHUTDOWN_DELAY_MS must be an integer between 0 and 60000' })
  @Max(60_000, { message: 'SHUTDOWN_DELAY_MS must be an integer between 0 and 60000' })
  SHUTDOWN_DELAY_MS?: number;

  /** OpenTelemetry tracing is loaded only when this is set (the OTLP/HTTP collector's base URL). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl(URL_OPTIONS, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'], {
    message: 'LOG_LEVEL must be one of error, warn, log, debug, verbose',
  })
  LOG_LEVEL: string = 'log';
}

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigValidationError';
  }
}

/** Validates process.env at startup; production turns every development default off. */
export function validateEnv(raw: Record<string, unknown>): EnvironmentVariables {
  const env = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
  const problems = validateSync(env, { skipMissingProperties: false }).flatMap((error) =>
    Object.values(error.constraints ?? {}).slice(0, 1),
  );
  if (env.NODE_ENV === 'production') {
    const required = [
      'DATABASE_URL',
      'IDP_URL',
      'OAUTH_CLIENT_ID',
      'OAUTH_AUDIENCE',
      'OAUTH_CLAIM_NAMESPACE',
      // The discovery documents and WWW-Authenticate name the service's URL: never the request's Host.
      'BASE_URL',
    ] as const;
    for (const name of required) {
      if (!env[name]) problems.push(`${name} is required when NODE_ENV=production`);
    }
  }
  if (env.NODE_ENV === 'production' && env.WEBHOOK_ALLOW_LOOPBACK_TARGETS) {
    problems.push(
      'WEBHOOK_ALLOW_LOOPBACK_TARGETS is for development and tests only, not NODE_ENV=production',
    );
  }
  const dkim = [env.DKIM_DOMAIN, env.DKIM_SELECTOR, env.DKIM_PRIVATE_KEY].filter(Boolean).length;
  if (dkim > 0 && dkim < 3) {
    problems.push('DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY are set together or not at all');
  }
  if (!env.SMS_GATEWAY_URL !== !env.SMS_GATEWAY_SECRET)
    problems.push('SMS_GATEWAY_URL and SMS_GATEWAY_SECRET are set together or not at all');
  if (env.NODE_ENV === 'production' && env.SMS_GATEWAY_URL && !env.SMS_GATEWAY_URL.startsWith('https://'))
    problems.push('SMS_GATEWAY_URL must be https:// in production');
  if (env.NODE_ENV === 'production' && env.SMTP_URL && !env.MAIL_FROM) {
    problems.push('MAIL_FROM is required when SMTP_URL is set in production');
  }
  // A lease shorter than the timeout would let a second worker deliver a run still in flight.
  if (env.AUTOMATION_LEASE_MS <= env.AUTOMATION_WEBHOOK_TIMEOUT_MS) {
    problems.push('AUTOMATION_LEASE_MS must be greater than AUTOMATION_WEBHOOK_TIMEOUT_MS');
  }
  if (env.AUTOMATION_RETRY_MAX_MS < env.AUTOMATION_RETRY_BASE_MS) {
    problems.push('AUTOMATION_RETRY_MAX_MS must not be less than AUTOMATION_RETRY_BASE_MS');
  }
  // An external identity provider is only usable with its client, audience and claim settings.
  if (env.IDP_URL) {
    for (const name of ['OAUTH_CLIENT_ID', 'OAUTH_AUDIENCE', 'OAUTH_CLAIM_NAMESPACE'] as const) {
      if (!env[name] && env.NODE_ENV !== 'production')
        problems.push(`${name} is required when IDP_URL is set`);
    }
  }
  if (problems.length) throw new ConfigValidationError(problems);
  env.OAUTH_MODE ??= env.NODE_ENV === 'production' ? 'proxy' : 'issuer';
  // In production issuer mode the scopes are this service's to grant: a token naming none gets none.
  env.MCP_UNSCOPED_TOKENS ??=
    env.NODE_ENV === 'production' && env.OAUTH_MODE === 'issuer' ? 'refuse' : 'full-access';
  return env;
}
