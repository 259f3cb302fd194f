import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';
import { DATABASE_POOL_MODES, DatabasePoolMode } from '../database/connection-pooler';

export const NODE_ENVS = ['development', 'production', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/**
 * `proxy`: the identity provider is the authorization server, this service forwards authorize and
 * registration. `issuer`: this service is the authorization server its clients see (strict clients).
 */
export const OAUTH_MODES = ['proxy', 'issuer'] as const;
export type OAuthMode = (typeof OAUTH_MODES)[number];
export const UNSCOPED_TOKEN_POLICIES = ['full-access', 'refuse'] as const;
export type UnscopedTokenPolicy = (typeof UNSCOPED_TOKEN_POLICIES)[number];

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no', ''].includes(v)) return false;
  return value;
};
const emptyToUndefined = ({ value }: { value: unknown }) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/** Every environment variable the service reads, with its default and rule (docs/CONFIGURATION.md lists them). */
export class EnvironmentVariables {
  @IsIn(NODE_ENVS)
  NODE_ENV: NodeEnv = 'development';

  @Transform(toInt)
  @IsInt({ message: 'PORT must be an integer between 0 and 65535' })
  @Min(0, { message: 'PORT must be an integer between 0 and 65535' })
  @Max(65535, { message: 'PORT must be an integer between 0 and 65535' })
  PORT: number = 3000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl(URL_OPTIONS, { message: 'BASE_URL must be an http(s) URL, e.g. https://api.example.com' })
  BASE_URL?: string;

  @Transform(toBool)
  @IsBoolean({ message: 'TRUST_PROXY must be true or false' })
  TRUST_PROXY: boolean = false;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, {
    message: 'DATABASE_URL must be a postgres:// connection string',
  })
  DATABASE_URL?: string;

  /** `transaction` when DATABASE_URL leads to a transaction pooler (PgBouncer's pool_mode=transaction). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(DATABASE_POOL_MODES, { message: 'DATABASE_POOL_MODE must be session or transaction' })
  DATABASE_POOL_MODE: DatabasePoolMode = 'session';

  // Past the pooler: the caches' LISTEN connection and the migrations' lock need a session.
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, {
    message: 'DATABASE_DIRECT_URL must be a postgres:// connection string',
  })
  DATABASE_DIRECT_URL?: string;

  /** With DATABASE_POOL_MODE=transaction: the pooler keeps named prepared statements (PgBouncer ≥ 1.21). */
  @Transform(toBool)
  @IsBoolean({ message: 'DATABASE_POOLER_PREPARED_STATEMENTS must be true or false' })
  DATABASE_POOLER_PREPARED_STATEMENTS: boolean = false;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  DATA_DIR: string = '.data';

  // A streaming replica that serves the API's reads (lists, single reads, search, export, metrics).
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, {
    message: 'DATABASE_READ_URL must be a postgres:// connection string',
  })
  DATABASE_READ_URL?: string;

  // A replica further behind the primary than this is skipped: the bound on a read's staleness.
  @Transform(toInt)
  @IsInt({ message: 'DATABASE_READ_MAX_LAG_MS must be an integer of at least 100' })
  @Min(100, { message: 'DATABASE_READ_MAX_LAG_MS must be an integer of at least 100' })
  DATABASE_READ_MAX_LAG_MS: number = 1_000;

  // A statement running longer is cancelled and its request answered 503 (the database is overloaded).
  @Transform(toInt)
  @IsInt({ message: 'DATABASE_STATEMENT_TIMEOUT_MS must be an integer of at least 100' })
  @Min(100, { message: 'DATABASE_STATEMENT_TIMEOUT_MS must be an integer of at least 100' })
  DATABASE_STATEMENT_TIMEOUT_MS: number = 15_000;

  // No request waits longer than this for a pooled connection (or a new one); then it is a 503.
  @Transform(toInt)
  @IsInt({ message: 'DATABASE_POOL_TIMEOUT_MS must be an integer of at least 100' })
  @Min(100, { message: 'DATABASE_POOL_TIMEOUT_MS must be an integer of at least 100' })
  DATABASE_POOL_TIMEOUT_MS: number = 5_000;

  // Long work (exports, searches, property-definition changes, large event batches) has a pool of its own.
  @Transform(toInt)
  @IsInt({ message: 'DATABASE_LONG_WORK_CONNECTIONS must be an integer from 1 to 100' })
  @Min(1, { message: 'DATABASE_LONG_WORK_CONNECTIONS must be an integer from 1 to 100' })
  @Max(100, { message: 'DATABASE_LONG_WORK_CONNECTIONS must be an integer from 1 to 100' })
  DATABASE_LONG_WORK_CONNECTIONS: number = 4;

  // How many of those one company may hold at once; more is a 429 with Retry-After.
  @Transform(toInt)
  @IsInt({ message: 'DATABASE_LONG_WORK_PER_COMPANY must be a positive integer' })
  @Min(1, { message: 'DATABASE_LONG_WORK_PER_COMPANY must be a positive integer' })
  DATABASE_LONG_WORK_PER_COMPANY: number = 2;

  // Ingestion transactions one company may have in flight per process, across its funnels; more wait.
  @Transform(toInt)
  @IsInt({ message: 'EVENT_WRITERS_PER_COMPANY must be a positive integer' })
  @Min(1, { message: 'EVENT_WRITERS_PER_COMPANY must be a positive integer' })
  EVENT_WRITERS_PER_COMPANY: number = 2;

  @Transform(toInt)
  @IsInt({ message: 'DATABASE_LONG_WORK_STATEMENT_TIMEOUT_MS must be an integer of at least 100' })
  @Min(100, { message: 'DATABASE_LONG_WORK_STATEMENT_TIMEOUT_MS must be an integer of at least 100' })
  DATABASE_LONG_WORK_STATEMENT_TIMEOUT_MS: number = 60_000;

  // An export whose client takes nothing for this long is cut off and frees its connection.
  @Transform(toInt)
  @IsInt({ message: 'EXPORT_STALL_TIMEOUT_MS must be an integer of at least 100' })
  @Min(100, { message: 'EXPORT_STALL_TIMEOUT_MS must be an integer of at least 100' })
  EXPORT_STALL_TIMEOUT_MS: number = 30_000;

  // The longest an export may stream, however steadily its client reads.
  @Transform(toInt)
  @IsInt({ message: 'EXPORT_TIMEOUT_MS must be an integer of at least 1000' })
  @Min(1_000, { message: 'EXPORT_TIMEOUT_MS must be an integer of at least 1000' })
  EXPORT_TIMEOUT_MS: number = 900_000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @Transform(toInt)
  @IsInt({ message: 'RATE_LIMIT_PER_MINUTE must be a positive integer' })
  @Min(1, { message: 'RATE_LIMIT_PER_MINUTE must be a positive integer' })
  RATE_LIMIT_PER_MINUTE: number = 100;

  // Refused keys and tokens a minute per client address; past it, 429 before any lookup.
  @Transform(toInt)
  @IsInt({ message: 'AUTH_FAILURES_PER_MINUTE must be a positive integer' })
  @Min(1, { message: 'AUTH_FAILURES_PER_MINUTE must be a positive integer' })
  AUTH_FAILURES_PER_MINUTE: number = 30;

  @Transform(toInt)
  @IsInt({ message: 'COLLECT_LIMIT_PER_ADDRESS must be a positive integer' })
  @Min(1, { message: 'COLLECT_LIMIT_PER_ADDRESS must be a positive integer' })
  COLLECT_LIMIT_PER_ADDRESS: number = 120;

  @Transform(toInt)
  @IsInt({ message: 'COLLECT_LIMIT_PER_FUNNEL must be a positive integer' })
  @Min(1, { message: 'COLLECT_LIMIT_PER_FUNNEL must be a positive integer' })
  COLLECT_LIMIT_PER_FUNNEL: number = 30_000;

  @Transform(toInt)
  @IsInt({ message: 'SUBMIT_LIMIT_PER_ADDRESS must be a positive integer' })
  @Min(1, { message: 'SUBMIT_LIMIT_PER_ADDRESS must be a positive integer' })
  SUBMIT_LIMIT_PER_ADDRESS: number = 5;

  @Transform(toInt)
  @IsInt({ message: 'SUBMIT_LIMIT_PER_FUNNEL must be a positive integer' })
  @Min(1, { message: 'SUBMIT_LIMIT_PER_FUNNEL must be a positive integer' })
  SUBMIT_LIMIT_PER_FUNNEL: number = 600;

  @Transform(toInt)
  @IsInt({ message: 'SUBMIT_MIN_SECONDS must be an integer of at least 0' })
  @Min(0, { message: 'SUBMIT_MIN_SECONDS must be an integer of at least 0' })
  SUBMIT_MIN_SECONDS: number = 3;

  @Transform(toInt)
  @IsInt({ message: 'DEMO_FUNNEL_PORT must be an integer between 0 and 65535' })
  @Min(0, { message: 'DEMO_FUNNEL_PORT must be an integer between 0 and 65535' })
  @Max(65535, { message: 'DEMO_FUNNEL_PORT must be an integer between 0 and 65535' })
  DEMO_FUNNEL_PORT: number = 3002;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl(URL_OPTIONS, { message: 'IDP_URL must be an http(s) URL of the identity provider tenant' })
  IDP_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OAUTH_CLIENT_ID?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OAUTH_AUDIENCE?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OAUTH_CONNECTION?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OAUTH_CLAIM_NAMESPACE?: string;

  /** Defaults to `proxy` in production and `issuer` elsewhere (see validateEnv). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(OAUTH_MODES, { message: 'OAUTH_MODE must be proxy or issuer' })
  OAUTH_MODE!: OAuthMode;

  /**
   * What a bearer token carrying none of the MCP scopes may do (identity providers that issue none).
   * Defaults to `refuse` in production issuer mode and `full-access` elsewhere (see validateEnv).
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(UNSCOPED_TOKEN_POLICIES, { message: 'MCP_UNSCOPED_TOKENS must be full-access or refuse' })
  MCP_UNSCOPED_TOKENS!: UnscopedTokenPolicy;

  /** Origins allowed to call /mcp, comma-separated; unset = the base URL's (plus loopback outside production). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\s*https?:\/\/[^\s,/]+\s*(,\s*https?:\/\/[^\s,/]+\s*)*$/, {
    message: 'MCP_ALLOWED_ORIGINS must be a comma-separated list of origins like https://app.example.com',
  })
  MCP_ALLOWED_ORIGINS?: string;

  // The bundled development identity provider (started only when IDP_URL is unset outside production).
  @Transform(toInt)
  @IsInt({ message: 'DEV_IDP_PORT must be an integer between 0 and 65535' })
  @Min(0, { message: 'DEV_IDP_PORT must be an integer between 0 and 65535' })
  @Max(65535, { message: 'DEV_IDP_PORT must be an integer between 0 and 65535' })
  DEV_IDP_PORT: number = 3001;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUUID('all', { message: 'DEV_USER_COMPANY_ID must be a company id (uuid)' })
  DEV_USER_COMPANY_ID?: string;

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
