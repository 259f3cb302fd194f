import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { DATABASE_POOL_MODES, DatabasePoolMode } from '../database/connection-pooler';
import { NODE_ENVS, NodeEnv, toInt, toBool, emptyToUndefined, URL_OPTIONS } from './env-values';

/** The service's own variables: HTTP, the database and its budgets, rate limits, collection (docs/CONFIGURATION.md). */
export class ServiceVariables {
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
}
