export * from './api-keys.service';
export * from './auth.module';
export * from './companies.service';
export * from './decorators/current-company.decorator';
export * from './decorators/public.decorator';
export * from './decorators/require-permissions.decorator';
export * from './entities';
export * from './guards/api-key.guard';
