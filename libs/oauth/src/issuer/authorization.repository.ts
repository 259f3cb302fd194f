import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OAuthAuthorizationCode, OAuthPendingAuthorization, OAuthRefreshToken } from '../entities';

type Pending = Omit<OAuthPendingAuthorization, 'createdAt'>;
type Code = Omit<OAuthAuthorizationCode, 'createdAt'>;

/**
 * The SQL of issuer mode's short-lived rows (shared by every replica): each is taken with one
 * DELETE ... RETURNING, so two requests can never both use it, and expired rows are swept on write.
 */
@Injectable()
export class AuthorizationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async savePending(pending: Pending): Promise<void> {
    await this.sweep();
    await this.dataSource.getRepository(OAuthPendingAuthorization).insert(pending);
  }

  /** The pending authorization for a state hash, removed; undefined when unknown or expired. */
  async takePending(stateHash: string): Promise<Pending | undefined> {
    const [row] = await this.take<Record<string, unknown>>(
      'oauth_pending_authorizations',
      'state_hash',
      stateHash,
    );
    return (
      row && {
        stateHash,
        clientId: row.client_id as string,
        redirectUri: row.redirect_uri as string,
        clientState: row.client_state as string | null,
        codeChallenge: row.code_challenge as string,
        scope: row.scope as string | null,
        issuer: row.issuer as string,
        expiresAt: row.expires_at as Date,
      }
    );
  }

  async saveCode(code: Code): Promise<void> {
    await this.sweep();
    await this.dataSource.getRepository(OAuthAuthorizationCode).insert(code);
  }

  /** The code row for a code hash, removed whether or not it is still valid (single use). */
  async takeCode(codeHash: string): Promise<(Code & { createdAt: Date; live: boolean }) | undefined> {
    const [row] = await this.take<Record<string, unknown>>(
      'oauth_authorization_codes',
      'code_hash',
      codeHash,
      true,
    );
    return (
      row && {
        codeHash,
        clientId: row.client_id as string,
        redirectUri: row.redirect_uri as string,
        codeChallenge: row.code_challenge as string,
        sealedTokens: row.sealed_tokens as string,
        expiresAt: row.expires_at as Date,
        createdAt: row.created_at as Date,
        live: row.live as boolean,
      }
    );
  }

  /** Records which client a refresh token was handed to (by its hash). */
  async bindRefreshToken(tokenHash: string, clientId: string): Promise<void> {
    await this.dataSource.getRepository(OAuthRefreshToken).upsert({ tokenHash, clientId }, ['tokenHash']);
  }

  async refreshTokenClient(tokenHash: string): Promise<string | undefined> {
    const row = await this.dataSource.getRepository(OAuthRefreshToken).findOneBy({ tokenHash });
    return row?.clientId;
  }

  /** The provider rotated a refresh token: the new one belongs to the same client, the old one to none. */
  async rotateRefreshToken(oldHash: string, newHash: string, clientId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.delete(OAuthRefreshToken, { tokenHash: oldHash });
      await manager.upsert(OAuthRefreshToken, { tokenHash: newHash, clientId }, ['tokenHash']);
    });
  }

  /** Forgets a client's refresh token (revocation); true when it was that client's. */
  async forgetRefreshToken(tokenHash: string, clientId: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(OAuthRefreshToken).delete({ tokenHash, clientId });
    return Boolean(result.affected);
  }

  private async take<T>(table: string, key: string, value: string, includeExpired = false): Promise<T[]> {
    // With includeExpired, a late row is deleted too (a late code is still burnt) and `live` says so.
    // The time is a parameter: Citus refuses now() in the RETURNING clause of a distributed DELETE.
    const [rows] = (await this.dataSource.query(
      `DELETE FROM ${table} WHERE ${key} = $1 ${includeExpired ? '' : 'AND expires_at > $2::timestamptz'}
       RETURNING *, expires_at > $2::timestamptz AS live`,
      [value, new Date()],
    )) as [T[], number];
    return rows;
  }

  private async sweep(): Promise<void> {
    await this.dataSource.query('DELETE FROM oauth_pending_authorizations WHERE expires_at <= now()');
    await this.dataSource.query('DELETE FROM oauth_authorization_codes WHERE expires_at <= now()');
  }
}
