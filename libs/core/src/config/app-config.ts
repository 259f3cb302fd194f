import { ConfigService } from '@nestjs/config';
import { EnvironmentVariables } from './env.validation';

/** Typed access to the validated environment. */
export type AppConfigService = ConfigService<EnvironmentVariables, true>;
