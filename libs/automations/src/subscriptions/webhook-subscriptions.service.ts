import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppConfigService, DomainException, isUuid, NotFoundError, ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { WebhookSubscription } from '../entities/webhook-subscription.entity';
import { WebhookSecretCipher } from '../webhook-secret.cipher';
import { MAX_SUBSCRIPTIONS_PER_FUNNEL, validateSubscriptionInput } from './webhook-subscription.input';
import { resolveTarget, TargetPolicy, TargetRefusedError } from './webhook-target';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';

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
    private readonly subscriptions: WebhookSubscriptionsRepository,
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
    const automations = events.map((event) => {
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
        messageChannel: null,
        messageSubject: null,
        messageTemplate: null,
      };
    });
    const subscription = await this.subscriptions.insertWithAutomations(
      { id, funnelId, companyId, targetUrl, events },
      automations,
      MAX_SUBSCRIPTIONS_PER_FUNNEL,
    );
    if (!subscription)
      throw new ValidationError(
        `a funnel holds at most ${MAX_SUBSCRIPTIONS_PER_FUNNEL} webhook subscriptions`,
      );
    return { ...present(subscription), secret };
  }

  async list(companyId: string, funnelId: string): Promise<WebhookSubscriptionView[]> {
    assertId('funnelId', funnelId);
    await this.funnels.findForCompany(companyId, funnelId);
    return (await this.subscriptions.listForFunnel(companyId, funnelId)).map(present);
  }

  async get(companyId: string, funnelId: string, webhookId: string): Promise<WebhookSubscriptionView> {
    assertId('funnelId', funnelId);
    assertId('webhookId', webhookId);
    await this.funnels.findForCompany(companyId, funnelId);
    const row = await this.subscriptions.findOne(companyId, funnelId, webhookId);
    if (!row) throw new NotFoundError('Webhook subscription not found');
    return present(row);
  }

  /** Unsubscribes: the subscription's automations and their pending runs go with it. */
  async delete(companyId: string, funnelId: string, webhookId: string): Promise<void> {
    assertId('funnelId', funnelId);
    assertId('webhookId', webhookId);
    await this.funnels.findForCompany(companyId, funnelId);
    if (!(await this.subscriptions.delete(companyId, funnelId, webhookId)))
      throw new NotFoundError('Webhook subscription not found');
  }
}

function present(row: WebhookSubscription): WebhookSubscriptionView {
  return { id: row.id, targetUrl: row.targetUrl, events: row.events, createdAt: row.createdAt.toISOString() };
}

function assertId(name: string, value: string): void {
  if (!isUuid(value)) throw new ValidationError(`${name} must be a UUID`);
}
