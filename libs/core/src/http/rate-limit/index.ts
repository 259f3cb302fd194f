export * from './auth-failure-limiter';
export * from './rate-limit.constants';
export * from './memory-rate-limit.storage';
export * from './rate-limit-storage';
export * from './rate-limit.guard';
export * from './rate-limit-exceeded.error';
export * from './rate-limit.module';
export * from './redis-rate-limit.storage';
