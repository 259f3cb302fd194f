import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiForbiddenResponse, ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { API_KEY_SECURITY } from '@app/core';
import type { Permission } from '../entities/api-key.entity';

export const REQUIRED_PERMISSIONS = 'auth:permissions';

/** The route needs an API key holding every listed permission; also documents it in Swagger. */
export const RequirePermissions = (...permissions: Permission[]) =>
  applyDecorators(
    SetMetadata(REQUIRED_PERMISSIONS, permissions),
    ApiSecurity(API_KEY_SECURITY),
    ApiUnauthorizedResponse({
      description:
        'Missing (`API key is required`), invalid/revoked (`Invalid or unauthorized API key`) or expired ' +
        '(`API key expired`) API key',
    }),
    ApiForbiddenResponse({ description: `The API key lacks the permission ${permissions.join(', ')}` }),
  );
