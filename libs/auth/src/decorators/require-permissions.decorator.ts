import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import { ApiErrorResponses, API_KEY_SECURITY } from '@app/core';
import type { Permission } from '../entities/api-key.entity';
import { MissingPermissionError } from '../errors/auth.errors';

export const REQUIRED_PERMISSIONS = 'auth:permissions';

/**
 * The route needs an API key holding every listed permission; also documents it in Swagger, with
 * the 403 the guard answers for these very permissions.
 */
export const RequirePermissions = (...permissions: Permission[]) =>
  applyDecorators(
    SetMetadata(REQUIRED_PERMISSIONS, permissions),
    ApiSecurity(API_KEY_SECURITY),
    ApiErrorResponses({
      401: {
        description:
          'Missing (`API key is required`), invalid/revoked (`Invalid or unauthorized API key`) or expired ' +
          '(`API key expired`) API key',
      },
      403: {
        description: `The API key lacks the permission ${permissions.join(', ')}`,
        examples: [new MissingPermissionError(permissions).message],
      },
    }),
  );
