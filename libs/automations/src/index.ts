export * from './automation-trigger';
export * from './automation-worker.module';
export * from './automations.module';
export * from './automations.service';
export * from './create-automation.input';
export * from './entities';
export * from './worker/automation.worker';
export * from './worker/webhook-delivery';
