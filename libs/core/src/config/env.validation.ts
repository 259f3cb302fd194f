import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';

export const NODE_ENVS = ['development', 'production', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

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

/** Every environment variable the service reads, with its default and rule (README lists them). */
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

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  DATA_DIR: string = '.data';

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @Transform(toInt)
  @IsInt({ message: 'RATE_LIMIT_PER_MINUTE must be a positive integer' })
  @Min(1, { message: 'RATE_LIMIT_PER_MINUTE must be a positive integer' })
  RATE_LIMIT_PER_MINUTE: number = 100;

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
    ] as const;
    for (const name of required) {
      if (!env[name]) problems.push(`${name} is required when NODE_ENV=production`);
    }
  }
  if (problems.length) throw new ConfigValidationError(problems);
  return env;
}
