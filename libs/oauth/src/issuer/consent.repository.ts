import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OAuthConsent, OAuthPendingConsent } from '../entities';

type PendingConsent = Omit<OAuthPendingConsent, 'createdAt'>;

/** The SQL of users' approvals of clients and of the authorizations waiting on the consent page. */
@Injectable()
export class ConsentRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The scopes `subject` approved for `clientId`, empty when none. */
  async approvedScopes(subject: string, clientId: string): Promise<string[]> {
    const row = await this.dataSource.getRepository(OAuthConsent).findOneBy({ subject, clientId });
    return row ? row.scopes.split(' ').filter(Boolean) : [];
  }

  /** Adds `scopes` to what `subject` approved for `clientId` (one row per user and client). */
  async approve(subject: string, clientId: string, scopes: string[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oauth_consents (subject, client_id, scopes) VALUES ($1, $2, $3)
       ON CONFLICT (subject, client_id) DO UPDATE SET approved_at = now(), scopes = (
         SELECT string_agg(DISTINCT s, ' ' ORDER BY s)
         FROM unnest(string_to_array(oauth_consents.scopes || ' ' || EXCLUDED.scopes, ' ')) AS s
         WHERE s <> '')`,
      [subject, clientId, [...new Set(scopes)].sort().join(' ')],
    );
  }

  async savePending(pending: PendingConsent): Promise<void> {
    await this.dataSource.query('DELETE FROM oauth_pending_consents WHERE expires_at <= now()');
    await this.dataSource.getRepository(OAuthPendingConsent).insert(pending);
  }

  /**
   * The waiting authorization of a consent token, removed, but only when the browser's cookie
   * matches too: a request missing either (a forged form) takes nothing and changes nothing.
   */
  async takePending(tokenHash: string, browserHash: string): Promise<PendingConsent | undefined> {
    const [rows] = (await this.dataSource.query(
      `DELETE FROM oauth_pending_consents
       WHERE token_hash = $1 AND browser_hash = $2 AND expires_at > now() RETURNING *`,
      [tokenHash, browserHash],
    )) as [Record<string, unknown>[], number];
    const row = rows[0];
    return (
      row && {
        tokenHash,
        browserHash,
        subject: row.subject as string,
        clientId: row.client_id as string,
        redirectUri: row.redirect_uri as string,
        clientState: row.client_state as string | null,
        codeChallenge: row.code_challenge as string,
        scope: row.scope as string,
        issuer: row.issuer as string,
        sealedTokens: row.sealed_tokens as string,
        expiresAt: row.expires_at as Date,
      }
    );
  }
}
