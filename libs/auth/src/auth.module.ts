import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyLookup } from './api-key-lookup';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { CompaniesRepository } from './companies.repository';
import { CompaniesService } from './companies.service';
import { authEntities } from './entities';
import { ApiKeyGuard } from './guards/api-key.guard';
import { ReadYourWritesInterceptor } from './read-your-writes.interceptor';
import { RevokedAccessTokens } from './revoked-access-tokens.repository';

@Module({
  imports: [TypeOrmModule.forFeature(authEntities)],
  providers: [
    ApiKeysService,
    ApiKeyLookup,
    CompaniesService,
    ApiKeysRepository,
    CompaniesRepository,
    RevokedAccessTokens,
  ],
  exports: [ApiKeysService, CompaniesService, RevokedAccessTokens],
})
export class AuthModule {}

/**
 * AuthModule plus the global deny-by-default API-key guard and, when reads may go to a replica
 * (`readRouting`: DATABASE_READ_URL is set), the read-your-writes routing of each caller's reads
 * (the HTTP app only). Without a replica every read is the primary's, and requests pass no
 * interceptor at all: an interceptor, even one that only hands on, costs each request an rxjs
 * pipeline.
 */
@Module({})
export class ApiKeyAuthModule {
  static forRoot(options: { readRouting: boolean }): DynamicModule {
    return {
      module: ApiKeyAuthModule,
      imports: [AuthModule],
      providers: [
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        ...(options.readRouting ? [{ provide: APP_INTERCEPTOR, useClass: ReadYourWritesInterceptor }] : []),
      ],
    };
  }
}
