import { ApiKey } from './api-key.entity';
import { Company } from './company.entity';
import { RevokedAccessToken } from './revoked-access-token.entity';

export * from './api-key.entity';
export * from './company.entity';
export * from './revoked-access-token.entity';
export const authEntities = [Company, ApiKey, RevokedAccessToken];
