import { ConfigValidationError, validateEnv } from '@app/core';

describe('automation settings', () => {
  it('defaults to a 1 s poll, 10 s timeout, 60 s lease and 8 attempts backing off from 5 s to 10 min', () => {
    expect(validateEnv({})).toMatchObject({
      AUTOMATION_WORKER_ENABLED: true,
      AUTOMATION_POLL_INTERVAL_MS: 1000,
      AUTOMATION_CONCURRENCY: 10,
      AUTOMATION_WEBHOOK_TIMEOUT_MS: 10_000,
      AUTOMATION_LEASE_MS: 60_000,
      AUTOMATION_RETRY_BASE_MS: 5_000,
      AUTOMATION_RETRY_MAX_MS: 600_000,
      AUTOMATION_MAX_ATTEMPTS: 8,
    });
  });

  it('refuses a lease that does not outlast the webhook timeout', () => {
    expect(() => validateEnv({ AUTOMATION_LEASE_MS: '5000', AUTOMATION_WEBHOOK_TIMEOUT_MS: '5000' })).toThrow(
      'AUTOMATION_LEASE_MS must be greater than AUTOMATION_WEBHOOK_TIMEOUT_MS',
    );
  });

  it('reports malformed values one line each', () => {
    const error = thrownBy(() =>
      validateEnv({
        AUTOMATION_SECRET_KEY: 'too-short',
        AUTOMATION_MAX_ATTEMPTS: '0',
        AUTOMATION_RETRY_BASE_MS: '1000',
        AUTOMATION_RETRY_MAX_MS: '10',
      }),
    );
    expect((error as ConfigValidationError).problems).toEqual([
      'AUTOMATION_SECRET_KEY must be 32 bytes as 64 hex characters or base64 (openssl rand -base64 32)',
      'AUTOMATION_MAX_ATTEMPTS must be an integer between 1 and 100',
      'AUTOMATION_RETRY_MAX_MS must not be less than AUTOMATION_RETRY_BASE_MS',
    ]);
  });

  it('accepts a 32-byte key as base64 or hex', () => {
    const base64 = Buffer.alloc(32, 7).toString('base64');
    expect(validateEnv({ AUTOMATION_SECRET_KEY: base64 }).AUTOMATION_SECRET_KEY).toBe(base64);
    expect(() => validateEnv({ AUTOMATION_SECRET_KEY: 'ab'.repeat(32) })).not.toThrow();
  });
});

describe('email settings', () => {
  it('wants the DKIM settings together and MAIL_FROM beside SMTP_URL in production', () => {
    const error = thrownBy(() =>
      validateEnv({
        NODE_ENV: 'production',
        DATABASE_URL: 'postgres://db/crm',
        BASE_URL: 'https://crm.example',
        IDP_URL: 'https://idp.example',
        OAUTH_CLIENT_ID: 'c',
        OAUTH_AUDIENCE: 'a',
        OAUTH_CLAIM_NAMESPACE: 'https://crm.example/',
        SMTP_URL: 'smtps://user:pw@smtp.example.com:465',
        DKIM_DOMAIN: 'acme.example',
      }),
    );
    expect((error as ConfigValidationError).problems).toEqual([
      'DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY are set together or not at all',
      'MAIL_FROM is required when SMTP_URL is set in production',
    ]);
  });

  it('refuses an SMTP_URL that is not smtp(s) and a MAIL_FROM that is not an address', () => {
    const error = thrownBy(() => validateEnv({ SMTP_URL: 'http://smtp.example', MAIL_FROM: 'Acme' }));
    expect((error as ConfigValidationError).problems).toEqual([
      expect.stringMatching(/^SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/),
      expect.stringMatching(/^MAIL_FROM must be an address/),
    ]);
    expect(
      validateEnv({ SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'Acme <hi@acme.example>' }),
    ).toMatchObject({
      SMTP_URL: 'smtp://127.0.0.1:2525',
    });
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
