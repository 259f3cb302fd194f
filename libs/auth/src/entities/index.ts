import { ApiKey } from './api-key.entity';
import { Company } from './company.entity';

export * from './api-key.entity';
export * from './company.entity';
export const authEntities = [Company, ApiKey];
