import { SetMetadata } from '@nestjs/common';

export const BEARER_AUTH = 'auth:bearer';

/** The route is protected by an OAuth bearer token instead of an API key (the MCP endpoint). */
export const BearerAuth = () => SetMetadata(BEARER_AUTH, true);
