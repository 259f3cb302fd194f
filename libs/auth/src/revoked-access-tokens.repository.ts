import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { canonicalJws } from '@app/core';
import { RevokedAccessToken } from './entities';

// The canonical spelling: a signature's last character carries bits the decoder drops, so several
// texts verify as one token, and revoking one of them must revoke them all.
const tokenHash = (token: string): string => createHash('sha256').update(canonicalJws(token)).digest('hex');

/**
 * Access tokens revoked before their expiry (RFC 7009), shared by every replica through
 * PostgreSQL: the bearer guard asks on each request, so a revocation holds from the next request
 * on, everywhere. Rows go once the token would have expired anyway.
 */
@Injectable()
export class RevokedAccessTokens {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async revoke(token: string, expiresAt: Date): Promise<void> {
    await this.dataSource.query('DELETE FROM oauth_revoked_access_tokens WHERE expires_at <= now()');
    await this.dataSource
      .getRepository(RevokedAccessToken)
      .upsert({ tokenHash: tokenHash(token), expiresAt }, ['tokenHash']);
  }

  isRevoked(token: string): Promise<boolean> {
    return this.dataSource.getRepository(RevokedAccessToken).existsBy({ tokenHash: tokenHash(token) });
  }
}
