import { ConfigService } from '@nestjs/config';
import { ValidationError, type AppConfigService } from '@app/core';
import type { FunnelsService } from '@app/workspaces';
import { AutomationsRepository } from './automations.repository';
import { AutomationsService } from './automations.service';
import { WebhookSecretCipher } from './webhook-secret.cipher';

describe('AutomationsService.create in production without SMTP_URL', () => {
  const env = new ConfigService({ NODE_ENV: 'production' }) as unknown as AppConfigService;
  const funnels = { findById: jest.fn() } as unknown as FunnelsService;
  const service = new AutomationsService(
    {} as AutomationsRepository,
    funnels,
    new WebhookSecretCipher(undefined, 'production'),
    env,
  );

  it('refuses an email automation with the reason, before anything is read or written', async () => {
    const creating = service.create({
      funnelId: '5f0c7a52-9d4e-4c53-a2f4-0d5d0d4b8a11',
      on: 'contact.created',
      message: 'email',
      subject: 'Hi',
      template: 'Hello',
    });
    await expect(creating).rejects.toThrow(ValidationError);
    await expect(creating).rejects.toThrow(
      '--message email is refused: email is not sent: SMTP_URL is not set (required in production)',
    );
    expect(funnels.findById).not.toHaveBeenCalled();
  });
});
