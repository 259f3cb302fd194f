import { Automation } from './automation.entity';
import { AutomationRun } from './automation-run.entity';
import { WebhookSubscription } from './webhook-subscription.entity';

export * from './automation.entity';
export * from './automation-run.entity';
export * from './webhook-subscription.entity';

// Automations, their runs (the outbox) and the REST hook subscriptions delivered through them.
export const automationEntities: Function[] = [Automation, AutomationRun, WebhookSubscription];
