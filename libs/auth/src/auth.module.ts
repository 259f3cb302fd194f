import { Module } from '@nestjs/common';
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

@Module({
  imports: [TypeOrmModule.forFeature(authEntities)],
  providers: [ApiKeysService, ApiKeyLookup, CompaniesService, ApiKeysRepository, CompaniesRepository],
  exports: [ApiKeysService, CompaniesService],
})
export class AuthModule {}

/**
 * AuthModule plus the global deny-by-default API-key guard and the read-your-writes routing of
 * each caller's reads (the HTTP app only).
 */
@Module({
  imports: [AuthModule],
  providers: [
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_INTERCEPTOR, useClass: ReadYourWritesInterceptor },
  ],
})
export class ApiKeyAuthModule {}
