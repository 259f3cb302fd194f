export * from './automation-trigger';
export * from './automations.module';
export * from './automations.service';
