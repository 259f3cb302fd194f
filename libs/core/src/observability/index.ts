export * from './access-log';
export * from './app-metrics';
export * from './http-metrics';
export * from './metrics-server';
export * from './observability.module';
export * from './request-id';
export * from './root-logger';
export * from './shutdown-state';
