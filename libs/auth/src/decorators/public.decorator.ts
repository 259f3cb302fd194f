import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'auth:public';

/** Opts a route out of API-key authentication (OAuth discovery, health). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
