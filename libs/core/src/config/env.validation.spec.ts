import { ConfigValidationError, validateEnv } from './env.validation';

/** A complete production configuration. */
const PRODUCTION = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://u:p@db:5432/crm',
  IDP_URL: 'https://tenant.idp.example',
  OAUTH_CLIENT_ID: 'client',
  OAUTH_AUDIENCE: 'https://api.example',
  OAUTH_CLAIM_NAMESPACE: 'https://example.com',
  BASE_URL: 'https://api.example',
};

describe(validateEnv.name, () => {
  it('applies the documented defaults', () => {
    const env = validateEnv({});
    expect(env).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3000,
      TRUST_PROXY: false,
      RATE_LIMIT_PER_MINUTE: 100,
      DATA_DIR: '.data',
      LOG_LEVEL: 'log',
    });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.REDIS_URL).toBeUndefined();
  });

  it('parses numbers and booleans from strings', () => {
    const env = validateEnv({ PORT: '8080', TRUST_PROXY: 'true', RATE_LIMIT_PER_MINUTE: '5' });
    expect(env).toMatchObject({ PORT: 8080, TRUST_PROXY: true, RATE_LIMIT_PER_MINUTE: 5 });
  });

  it('reports one readable line per problem', () => {
    const error = thrownBy(() =>
      validateEnv({ PORT: 'eighty', DATABASE_URL: 'mysql://x', REDIS_URL: 'http://x', TRUST_PROXY: 'maybe' }),
    );
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect((error as ConfigValidationError).problems).toEqual([
      'PORT must be an integer between 0 and 65535',
      'TRUST_PROXY must be true or false',
      'DATABASE_URL must be a postgres:// connection string',
      'REDIS_URL must be a redis:// or rediss:// URL',
    ]);
  });

  it('connects straight to PostgreSQL unless told a transaction pooler is in between', () => {
    expect(validateEnv({})).toMatchObject({ DATABASE_POOL_MODE: 'session', DATABASE_DIRECT_URL: undefined });
    expect(
      validateEnv({ DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: 'postgres://u@db:5432/crm' }),
    ).toMatchObject({ DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: 'postgres://u@db:5432/crm' });
    expect(
      (thrownBy(() => validateEnv({ DATABASE_POOL_MODE: 'statement' })) as ConfigValidationError).problems,
    ).toEqual(['DATABASE_POOL_MODE must be session or transaction']);
    expect(validateEnv({})).toMatchObject({ DATABASE_POOLER_PREPARED_STATEMENTS: false });
    expect(validateEnv({ DATABASE_POOLER_PREPARED_STATEMENTS: 'true' })).toMatchObject({
      DATABASE_POOLER_PREPARED_STATEMENTS: true,
    });
    expect(
      (thrownBy(() => validateEnv({ DATABASE_POOLER_PREPARED_STATEMENTS: 'maybe' })) as ConfigValidationError)
        .problems,
    ).toEqual(['DATABASE_POOLER_PREPARED_STATEMENTS must be true or false']);
  });

  it('turns the development defaults off in production', () => {
    expect(() => validateEnv({ NODE_ENV: 'production' })).toThrow(
      /DATABASE_URL is required when NODE_ENV=production[\s\S]*IDP_URL is required/,
    );
  });

  it('needs the client, audience and claim namespace with an external IDP_URL', () => {
    expect(() => validateEnv({ IDP_URL: 'https://tenant.idp.example', OAUTH_CLIENT_ID: 'c' })).toThrow(
      /OAUTH_AUDIENCE is required when IDP_URL is set[\s\S]*OAUTH_CLAIM_NAMESPACE is required when IDP_URL is set/,
    );
  });

  it('configures the development identity provider', () => {
    expect(validateEnv({}).DEV_IDP_PORT).toBe(3001);
    expect(validateEnv({ DEV_IDP_PORT: '0' }).DEV_IDP_PORT).toBe(0);
    expect(() => validateEnv({ DEV_USER_COMPANY_ID: 'acme' })).toThrow(
      /DEV_USER_COMPANY_ID must be a company id/,
    );
  });

  it('accepts a complete production configuration', () => {
    const env = validateEnv(PRODUCTION);
    expect(env.NODE_ENV).toBe('production');
  });

  it('takes the SMS gateway URL and secret together, https in production, and SMTP connections 1 to 50', () => {
    const secret = 's'.repeat(32);
    expect(
      validateEnv({ SMS_GATEWAY_URL: 'http://127.0.0.1:9/send', SMS_GATEWAY_SECRET: secret }),
    ).toMatchObject({
      SMS_GATEWAY_URL: 'http://127.0.0.1:9/send',
      SMS_GATEWAY_SECRET: secret,
    });
    expect(() => validateEnv({ SMS_GATEWAY_URL: 'https://sms.example/send' })).toThrow(
      /SMS_GATEWAY_URL and SMS_GATEWAY_SECRET are set together or not at all/,
    );
    expect(() =>
      validateEnv({ SMS_GATEWAY_URL: 'https://sms.example/send', SMS_GATEWAY_SECRET: 'short' }),
    ).toThrow(/SMS_GATEWAY_SECRET must be at least 32 characters/);
    expect(() =>
      validateEnv({ ...PRODUCTION, SMS_GATEWAY_URL: 'http://sms.example/send', SMS_GATEWAY_SECRET: secret }),
    ).toThrow(/SMS_GATEWAY_URL must be https:\/\/ in production/);
    expect(validateEnv({}).SMTP_MAX_CONNECTIONS).toBe(5);
    expect(() => validateEnv({ SMTP_MAX_CONNECTIONS: '0' })).toThrow(
      /SMTP_MAX_CONNECTIONS must be an integer between 1 and 50/,
    );
  });

  it('requires BASE_URL in production, so no document reflects the request Host', () => {
    expect(() => validateEnv({ NODE_ENV: 'production' })).toThrow(
      /BASE_URL is required when NODE_ENV=production/,
    );
  });

  it('defaults OAUTH_MODE to proxy in production and issuer elsewhere, and refuses other values', () => {
    expect(validateEnv({}).OAUTH_MODE).toBe('issuer');
    expect(validateEnv({ NODE_ENV: 'test' }).OAUTH_MODE).toBe('issuer');
    expect(validateEnv({ OAUTH_MODE: 'proxy' }).OAUTH_MODE).toBe('proxy');
    expect(validateEnv(PRODUCTION).OAUTH_MODE).toBe('proxy');
    expect(validateEnv({ ...PRODUCTION, OAUTH_MODE: 'issuer' }).OAUTH_MODE).toBe('issuer');
    expect(() => validateEnv({ OAUTH_MODE: 'gateway' })).toThrow(
      /^Invalid configuration:\n  - OAUTH_MODE must be proxy or issuer$/,
    );
  });

  it('refuses unscoped tokens by default in production issuer mode only, unless configured', () => {
    expect(validateEnv({ ...PRODUCTION, OAUTH_MODE: 'issuer' }).MCP_UNSCOPED_TOKENS).toBe('refuse');
    expect(validateEnv(PRODUCTION).MCP_UNSCOPED_TOKENS).toBe('full-access');
    expect(validateEnv({ OAUTH_MODE: 'issuer' }).MCP_UNSCOPED_TOKENS).toBe('full-access');
    expect(
      validateEnv({ ...PRODUCTION, OAUTH_MODE: 'issuer', MCP_UNSCOPED_TOKENS: 'full-access' })
        .MCP_UNSCOPED_TOKENS,
    ).toBe('full-access');
  });

  it('reads MCP_ALLOWED_ORIGINS as a comma-separated list of origins', () => {
    expect(
      validateEnv({ MCP_ALLOWED_ORIGINS: 'https://a.example, http://localhost:6274' }).MCP_ALLOWED_ORIGINS,
    ).toBe('https://a.example, http://localhost:6274');
    expect(() => validateEnv({ MCP_ALLOWED_ORIGINS: 'a.example' })).toThrow(/MCP_ALLOWED_ORIGINS must be/);
  });
});

/** The error `run` throws (failing the test when it throws none), so assertions need no catch block. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error to be thrown');
}
