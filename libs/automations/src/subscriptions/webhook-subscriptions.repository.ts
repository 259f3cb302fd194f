import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { NewAutomation } from '../automations.repository';
import { Automation } from '../entities/automation.entity';
import { WebhookSubscription } from '../entities/webhook-subscription.entity';

export type NewWebhookSubscription = Pick<
  WebhookSubscription,
  'id' | 'funnelId' | 'companyId' | 'targetUrl' | 'events'
>;

/** The SQL of the webhook_subscriptions table; a subscription's automations are written with it. */
@Injectable()
export class WebhookSubscriptionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get subscriptions() {
    return this.dataSource.getRepository(WebhookSubscription);
  }

  /**
   * Stores the subscription with the automations that deliver it, in one transaction, unless its
   * funnel already holds `maxPerFunnel` subscriptions (then undefined and nothing is written).
   */
  insertWithAutomations(
    subscription: NewWebhookSubscription,
    automations: NewAutomation[],
    maxPerFunnel: number,
  ): Promise<WebhookSubscription | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const count = await manager.countBy(WebhookSubscription, { funnelId: subscription.funnelId });
      if (count >= maxPerFunnel) return undefined;
      const saved = await manager.save(manager.create(WebhookSubscription, subscription));
      await manager.insert(Automation, automations);
      return saved;
    });
  }

  /** The funnel's subscriptions, oldest first. */
  listForFunnel(companyId: string, funnelId: string): Promise<WebhookSubscription[]> {
    return this.subscriptions.find({
      where: { funnelId, companyId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  findOne(companyId: string, funnelId: string, id: string): Promise<WebhookSubscription | null> {
    return this.subscriptions.findOneBy({ id, funnelId, companyId });
  }

  /** Deletes the subscription (its automations and their runs cascade); false when there was none. */
  async delete(companyId: string, funnelId: string, id: string): Promise<boolean> {
    const result = await this.subscriptions.delete({ id, funnelId, companyId });
    return Boolean(result.affected);
  }

  /** Deletes a subscription whatever its tenant: its receiver unsubscribed (410 Gone). */
  async deleteById(funnelId: string, id: string): Promise<void> {
    await this.dataSource.query('DELETE FROM webhook_subscriptions WHERE funnel_id = $1 AND id = $2', [
      funnelId,
      id,
    ]);
  }
}
