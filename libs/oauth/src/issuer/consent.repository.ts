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

  /**
   * Adds `scopes` to what `subject` approved for `clientId` (one row per user and client): the row
   * locked, then its scopes merged here (Citus refuses a subquery in an INSERT's ON CONFLICT). A
   * first approval inserts; when another inserted it meanwhile, the merge runs on its row.
   */
  async approve(subject: string, clientId: string, scopes: string[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      for (;;) {
        const [row] = (await manager.query(
          'SELECT scopes FROM oauth_consents WHERE subject = $1 AND client_id = $2 FOR UPDATE',
          [subject, clientId],
        )) as { scopes: string }[];
        if (row) {
          await manager.query(
            'UPDATE oauth_consents SET approved_at = $3, scopes = $4 WHERE subject = $1 AND client_id = $2',
            [subject, clientId, new Date(), scopeText([...row.scopes.split(' '), ...scopes])],
          );
          return;
        }
        const inserted = (await manager.query(
          `INSERT INTO oauth_consents (subject, client_id, scopes) VALUES ($1, $2, $3)
           ON CONFLICT (subject, client_id) DO NOTHING RETURNING subject`,
          [subject, clientId, scopeText(scopes)],
        )) as unknown[];
        if (inserted.length) return;
      }
    });
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

/** Scopes as stored: distinct, sorted, separated by one space. */
const scopeText = (scopes: string[]) => [...new Set(scopes.filter(Boolean))].sort().join(' ');
