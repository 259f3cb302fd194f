import { ConfigService } from '@nestjs/config';
import type { AppConfigService } from '@app/core';
import { emailUnavailableReason, smtpDeliveryError } from './mail-sender';

const env = (values: Record<string, string>) => new ConfigService(values) as unknown as AppConfigService;

describe('smtpDeliveryError', () => {
  it("keeps the server's answer; a 5xx is permanent, a 4xx is not", () => {
    const refused = smtpDeliveryError(
      Object.assign(new Error('Message failed'), {
        responseCode: 550,
        response: '550 5.1.1 No such\r\n user',
      }),
      1000,
    );
    expect([refused.message, refused.permanent]).toEqual(['SMTP 550: 550 5.1.1 No such user', true]);
    const later = smtpDeliveryError(
      Object.assign(new Error('x'), { responseCode: 421, response: '421 Try later' }),
      1000,
    );
    expect([later.message, later.permanent]).toEqual(['SMTP 421: 421 Try later', false]);
  });

  it('retries a refused connection and a timeout', () => {
    const refused = smtpDeliveryError(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2525'), { code: 'ESOCKET' }),
      1000,
    );
    expect([refused.message, refused.permanent]).toEqual(['SMTP connection failed (ECONNREFUSED)', false]);
    const slow = smtpDeliveryError(Object.assign(new Error('Timeout'), { code: 'ETIMEDOUT' }), 1500);
    expect([slow.message, slow.permanent]).toEqual(['SMTP timed out after 1500 ms', false]);
  });
});

describe('emailUnavailableReason', () => {
  it('refuses email in production without SMTP_URL or the signing key, and only there', () => {
    expect(emailUnavailableReason(env({ NODE_ENV: 'production' }))).toMatch(/SMTP_URL is not set/);
    const key = Buffer.alloc(32, 1).toString('base64');
    const smtp = { NODE_ENV: 'production', SMTP_URL: 'smtp://mx.example' };
    expect(emailUnavailableReason(env(smtp))).toMatch(/AUTOMATION_SECRET_KEY is not set/);
    expect(emailUnavailableReason(env({ ...smtp, AUTOMATION_SECRET_KEY: key }))).toBeNull();
    expect(emailUnavailableReason(env({ NODE_ENV: 'development' }))).toBeNull();
  });
});
