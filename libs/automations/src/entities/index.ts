import { Automation } from './automation.entity';
import { AutomationRun } from './automation-run.entity';

export * from './automation.entity';
export * from './automation-run.entity';

// Automations and their runs (the outbox).
export const automationEntities: Function[] = [Automation, AutomationRun];
