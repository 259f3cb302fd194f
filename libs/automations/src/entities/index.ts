// Automations and their runs (the outbox).
export const automationEntities: Function[] = [];
