import { Injectable } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';

/** A table's place in Citus's catalog: 'h' distributed by hash, 'n' a reference table. */
export interface CitusPlacement {
  table: string;
  method: string;
  column: string | null;
  colocationId: number;
}

export interface ForeignKey {
  table: string;
  name: string;
  definition: string;
}

/** The SQL that reads and changes a Citus coordinator's catalog. */
@Injectable()
export class CitusRepository {
  constructor(private readonly dataSource: DataSource) {}

  async citusVersion(): Promise<string | null> {
    const rows: { v: string }[] = await this.dataSource.query(
      "SELECT extversion AS v FROM pg_extension WHERE extname = 'citus'",
    );
    return rows[0]?.v ?? null;
  }

  /** Whether the coordinator holds placements (citus_set_coordinator_host): the NOTIFY triggers run there. */
  async coordinatorInMetadata(): Promise<boolean> {
    const [row]: { ok: boolean }[] = await this.dataSource.query(
      'SELECT EXISTS (SELECT 1 FROM pg_dist_node WHERE groupid = 0) AS ok',
    );
    return row.ok;
  }

  /** The tables of the schema (partitions aside), each with its placement when Citus has one. */
  async placements(): Promise<Map<string, CitusPlacement | null>> {
    const rows: { table: string; method: string | null; column: string | null; colocation: number | null }[] =
      await this.dataSource.query(
        `SELECT c.relname AS "table", p.partmethod::text AS "method", p.colocationid AS "colocation",
                CASE WHEN p.partmethod = 'h' THEN column_to_column_name(p.logicalrelid, p.partkey) END AS "column"
           FROM pg_class c LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid
          WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          ORDER BY 1`,
      );
    return new Map(
      rows.map((r) => [
        r.table,
        r.method === null
          ? null
          : { table: r.table, method: r.method, column: r.column, colocationId: r.colocation ?? 0 },
      ]),
    );
  }

  /** Foreign keys between the schema's tables: [referencing, referenced]. */
  async foreignKeys(): Promise<[string, string][]> {
    const rows: { from: string; to: string }[] = await this.dataSource.query(
      `SELECT DISTINCT f.relname AS "from", t.relname AS "to"
         FROM pg_constraint k JOIN pg_class f ON f.oid = k.conrelid JOIN pg_class t ON t.oid = k.confrelid
        WHERE k.contype = 'f' AND f.relnamespace = current_schema()::regnamespace AND NOT f.relispartition
          AND f.oid <> t.oid`,
    );
    return rows.map((r) => [r.from, r.to]);
  }

  /** The foreign keys of `tables`, each as ALTER TABLE ... ADD CONSTRAINT writes it. */
  async foreignKeysOf(session: QueryRunner, tables: string[]): Promise<ForeignKey[]> {
    return session.query(
      `SELECT f.relname AS "table", k.conname AS "name", pg_get_constraintdef(k.oid) AS "definition"
         FROM pg_constraint k JOIN pg_class f ON f.oid = k.conrelid
        WHERE k.contype = 'f' AND f.relnamespace = current_schema()::regnamespace AND f.relname = ANY($1)
        ORDER BY 1, 2`,
      [tables],
    );
  }

  async dropForeignKey(session: QueryRunner, key: ForeignKey): Promise<void> {
    await session.query(`ALTER TABLE "${key.table}" DROP CONSTRAINT "${key.name}"`);
  }

  async addForeignKey(session: QueryRunner, key: ForeignKey): Promise<void> {
    await session.query(`ALTER TABLE "${key.table}" ADD CONSTRAINT "${key.name}" ${key.definition}`);
  }

  /**
   * Runs `work` in one transaction with the settings placing the tables needs: the schema's
   * triggers (counts, unique values, NOTIFY) are allowed on distributed tables, and DDL runs over
   * one connection per node, so a table can be distributed after a reference table was made in
   * the same transaction. All or nothing: a failure leaves the database as it was.
   */
  async inDistributionTransaction<T>(
    shardCount: number | undefined,
    work: (session: QueryRunner) => Promise<T>,
  ): Promise<T> {
    const session = this.dataSource.createQueryRunner();
    await session.connect();
    try {
      await session.startTransaction();
      await session.query('SET LOCAL citus.enable_unsafe_triggers = on');
      await session.query("SET LOCAL citus.multi_shard_modify_mode = 'sequential'");
      if (shardCount !== undefined)
        await session.query(`SET LOCAL citus.shard_count = ${Number(shardCount)}`);
      const result = await work(session);
      await session.commitTransaction();
      return result;
    } catch (error) {
      if (session.isTransactionActive) await session.rollbackTransaction();
      throw error;
    } finally {
      await session.release();
    }
  }

  async createReferenceTable(session: QueryRunner, table: string): Promise<void> {
    await session.query('SELECT create_reference_table($1)', [table]);
  }

  async createDistributedTable(
    session: QueryRunner,
    table: string,
    column: string,
    colocateWith: string | null,
  ): Promise<void> {
    await session.query('SELECT create_distributed_table($1, $2, colocate_with => $3)', [
      table,
      column,
      colocateWith ?? 'none',
    ]);
  }
}
