import { Client } from 'pg';

/** The account the development identity provider signs in: one company and its subscription. */
export interface DevUser {
  companyId: string;
  subscriptionId: string;
}

/** Finds the development user; a `companyId` asks for that company (the one chosen at login). */
export type DevUserLookup = (companyId?: string) => Promise<DevUser | undefined>;

/**
 * The development user from the service's database: `DEV_USER_COMPANY_ID` when set, else the oldest
 * company (after `demo seed` on a fresh database, the demo company). Read on every login and token,
 * so a company created after start-up is picked up.
 */
export function databaseDevUser(databaseUrl: string, configuredCompanyId?: string): DevUserLookup {
  return async (companyId = configuredCompanyId) => {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string; subscription_id: string }>(
        companyId
          ? 'SELECT id, subscription_id FROM companies WHERE id = $1'
          : 'SELECT id, subscription_id FROM companies ORDER BY created_at, id LIMIT 1',
        companyId ? [companyId] : [],
      );
      return rows[0] && { companyId: rows[0].id, subscriptionId: rows[0].subscription_id };
    } finally {
      await client.end();
    }
  };
}
