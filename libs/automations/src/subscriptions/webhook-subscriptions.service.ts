import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfigService, DomainException, isUuid, NotFoundError, ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { Automation } from '../entities/automation.entity';
import { WebhookSubscription } from '../entities/webhook-subscription.entity';
import { WebhookSecretCipher } from '../webhook-secret.cipher';
import { MAX_SUBSCRIPTIONS_PER_FUNNEL, validateSubscriptionInput } from './webhook-subscription.input';
import { resolveTarget, TargetPolicy, TargetRefusedError } from './webhook-target';

/** A subscription as the API shows it; `secret` only in the answer to its creation. */
export interface WebhookSubscriptionView {
  id: string;
  targetUrl: string;
  events: string[];
  createdAt: string;
  secret?: string;
}

/**
 * REST hook subscriptions of a company's funnels. Each subscribed event is a webhook automation
 * owned by the subscription, so deliveries use the automations outbox, signature and retries.
 */
@Injectable()
export class WebhookSubscriptionsService {
  private readonly policy: TargetPolicy;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly funnels: FunnelsService,
    private readonly cipher: WebhookSecretCipher,
    @Inject(ConfigService) env: AppConfigService,
  ) {
    this.policy = {
      production: env.get('NODE_ENV', { infer: true }) === 'production',
      allowLoopback: env.get('WEBHOOK_ALLOW_LOOPBACK_TARGETS', { infer: true }),
    };
  }

  async create(companyId: string, funnelId: string, input: unknown): Promise<WebhookSubscriptionView> {
    assertId('funnelId', funnelId);
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    const { targetUrl, events } = validateSubscriptionInput(input, funnel.contactStatuses);
    try {
      await resolveTarget(targetUrl, this.policy);
    } catch (error) {
      if (error instanceof TargetRefusedError) throw new ValidationError(error.message);
      throw error;
    }
    if (!this.cipher.hasKey)
      throw new DomainException(
        503,
        'Webhook subscriptions are unavailable: the signing-secret key is not configured',
      );

    const id = randomUUID();
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const subscription = await this.dataSource.transaction(async (manager) => {
      const count = await manager.countBy(WebhookSubscription, { funnelId });
      if (count >= MAX_SUBSCRIPTIONS_PER_FUNNEL)
        throw new ValidationError(
          `a funnel holds at most ${MAX_SUBSCRIPTIONS_PER_FUNNEL} webhook subscriptions`,
        );
      const saved = await manager.save(
        manager.create(WebhookSubscription, { id, funnelId, companyId, targetUrl, events }),
      );
      await manager.insert(
        Automation,
        events.map((event) => {
          const automationId = randomUUID();
          return {
            id: automationId,
            funnelId,
            companyId,
            subscriptionId: id,
            name: `webhook subscription ${id}: ${event}`,
            trigger: event,
            action: 'webhook' as const,
            webhookUrl: targetUrl,
            webhookSecretEncrypted: this.cipher.encrypt(secret, automationId),
          };
        }),
      );
      return saved;
    });
    return { ...present(subscription), secret };
  }

  async list(companyId: string, funnelId: string): Promise<WebhookSubscriptionView[]> {
    assertId('funnelId', funnelId);
    await this.funnels.findForCompany(companyId, funnelId);
    const rows = await this.dataSource
      .getRepository(WebhookSubscription)
      .find({ where: { funnelId, companyId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return rows.map(present);
  }

  async get(companyId: string, funnelId: string, webhookId: string): Promise<WebhookSubscriptionView> {
    assertId('funnelId', funnelId);
    assertId('webhookId', webhookId);
    await this.funnels.findForCompany(companyId, funnelId);
    const row = await this.dataSource
      .getRepository(WebhookSubscription)
      .findOneBy({ id: webhookId, funnelId, companyId });
    if (!row) throw new NotFoundError('Webhook subscription not found');
    return present(row);
  }

  /** Unsubscribes: the subscription's automations and their pending runs go with it. */
  async delete(companyId: string, funnelId: string, webhookId: string): Promise<void> {
    assertId('funnelId', funnelId);
    assertId('webhookId', webhookId);
    await this.funnels.findForCompany(companyId, funnelId);
    const result = await this.dataSource
      .getRepository(WebhookSubscription)
      .delete({ id: webhookId, funnelId, companyId });
    if (!result.affected) throw new NotFoundError('Webhook subscription not found');
  }
}

function present(row: WebhookSubscription): WebhookSubscriptionView {
  return { id: row.id, targetUrl: row.targetUrl, events: row.events, createdAt: row.createdAt.toISOString() };
}

function assertId(name: string, value: string): void {
  if (!isUuid(value)) throw new ValidationError(`${name} must be a UUID`);
}
