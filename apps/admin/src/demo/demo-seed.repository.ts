import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The SQL of the demo seed's bookkeeping: marking a finished demo company, clearing an unfinished one. */
@Injectable()
export class DemoSeedRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Makes the company the demo company: the last step of a seed, so only a complete one is found. */
  async markComplete(companyId: string, subscriptionId: string): Promise<void> {
    await this.dataSource.query('UPDATE "companies" SET "subscription_id" = $2 WHERE "id" = $1', [
      companyId,
      subscriptionId,
    ]);
  }

  /**
   * Removes every company a seed left unfinished, with all of its funnels' data. Tables keyed by
   * funnel without a foreign key (the metrics) are found in the catalog, so none is forgotten.
   */
  async removeUnfinished(subscriptionId: string): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const companies: { id: string }[] = await manager.query(
        'SELECT "id" FROM "companies" WHERE "subscription_id" = $1',
        [subscriptionId],
      );
      if (companies.length === 0) return 0;
      const companyIds = companies.map((c) => c.id);
      const funnels: { id: string }[] = await manager.query(
        `SELECT f."id" FROM "funnels" f JOIN "workspaces" w ON w."id" = f."workspace_id"
          WHERE w."company_id" = ANY($1::uuid[])`,
        [companyIds],
      );
      const funnelIds = funnels.map((f) => f.id);
      const tables: { name: string }[] = await manager.query(
        `SELECT c."table_name" AS "name" FROM information_schema.columns c
           JOIN information_schema.tables t USING ("table_schema", "table_name")
          WHERE c."table_schema" = current_schema() AND c."column_name" = 'funnel_id'
            AND t."table_type" = 'BASE TABLE'
            AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = format('%I', c."table_name")::regclass)
          ORDER BY 1`,
      );
      for (const { name } of tables) {
        await manager.query(`DELETE FROM "${name}" WHERE "funnel_id" = ANY($1::uuid[])`, [funnelIds]);
      }
      // Workspaces, funnels, keys and idempotency keys go with the company (ON DELETE CASCADE).
      await manager.query('DELETE FROM "companies" WHERE "id" = ANY($1::uuid[])', [companyIds]);
      return companyIds.length;
    });
  }
}
