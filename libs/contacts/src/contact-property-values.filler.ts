import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { BackgroundRounds, EnvironmentVariables } from '@app/core';

/** Definitions (or retired generations) looked at per round, whichever process takes them. */
const CANDIDATES = 20;

interface Pending {
  funnel_id: string;
  name: string;
}

interface Retired {
  funnel_id: string;
  property_name: string;
  generation: string;
}

/**
 * Copies the values stored before a number or date definition began (its creation or change of
 * type) into contact_property_values, and removes the rows of generations that ended, in chunks
 * after the definition's request. Each chunk is one short transaction that claims its definition
 * (or retired generation) row FOR UPDATE SKIP LOCKED, so any number of processes share the work,
 * none waits on another, and a restart resumes at the cursor; no session state, so it works
 * behind a transaction pooler. The triggers on contacts keep the rows of every write from the
 * moment the definition commits; a chunk reads its contacts FOR SHARE, so a write in flight either
 * commits before the chunk reads it (the chunk copies the new value) or waits for the chunk to
 * commit (its trigger then writes over the chunk's row).
 */
@Injectable()
export class ContactPropertyValuesFiller extends BackgroundRounds {
  protected readonly logger = new Logger(ContactPropertyValuesFiller.name);
  protected readonly failure = 'copying property values failed';
  readonly chunk: number;

  constructor(
    private readonly dataSource: DataSource,
    config: ConfigService<EnvironmentVariables, true>,
  ) {
    super();
    this.chunk = config.get('PROPERTY_VALUES_FILL_CHUNK', { infer: true });
  }

  /** Works until nothing is left that another process is not already working on. */
  async drain(): Promise<void> {
    for (;;) {
      let progressed = false;
      const pending: Pending[] = await this.dataSource.query(
        `SELECT funnel_id, name FROM contact_property_definitions WHERE NOT values_ready
         ORDER BY updated_at LIMIT ${CANDIDATES}`,
      );
      for (const p of pending) while (this.started && (await this.fillChunk(p))) progressed = true;
      const retired: Retired[] = await this.dataSource.query(
        `SELECT funnel_id, property_name, generation FROM contact_property_values_retired LIMIT ${CANDIDATES}`,
      );
      for (const r of retired) while (this.started && (await this.removeChunk(r))) progressed = true;
      if (!progressed || !this.started) return;
    }
  }

  /**
   * Copies the next chunk of contacts after the definition's cursor; marks it ready after the
   * last. False when there is nothing to do (ready, gone, or another process holds it).
   */
  async fillChunk({ funnel_id: funnelId, name }: Pending): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      // Shared, as every writer of the funnel's properties takes it: a definition change waits for
      // the chunk (or the chunk for it) before either locks a row, so none waits in a cycle.
      await manager.query('SELECT pg_advisory_xact_lock_shared(contact_properties_lock_key($1))', [funnelId]);
      const claimed: { type: string; generation: string; at: string | null; id: string | null }[] =
        await manager.query(
          `SELECT type, values_generation AS generation, values_cursor_created_at::text AS at, values_cursor AS id
           FROM contact_property_definitions
           WHERE funnel_id = $1 AND name = $2 AND NOT values_ready FOR UPDATE SKIP LOCKED`,
          [funnelId, name],
        );
      if (!claimed.length) return false;
      const { type, generation, at, id } = claimed[0];
      // In (created_at, id) order, by idx_contacts_filter_created_at: a contact's created_at never
      // changes, and a contact created after the definition is copied by its trigger.
      const [{ copied, lastAt, lastId }]: { copied: number; lastAt: string | null; lastId: string | null }[] =
        await manager.query(
          `WITH chunk AS (
             SELECT c.id, c.created_at, c.properties -> $2::text AS value FROM contacts c
             WHERE c.funnel_id = $1 AND ($3::timestamptz IS NULL OR (c.created_at, c.id) > ($3::timestamptz, $4::uuid))
             ORDER BY c.created_at, c.id LIMIT $5 FOR SHARE
           ), typed AS (
             SELECT id, contact_property_number($6, value) AS n, contact_property_date($6, value) AS dt FROM chunk
           ), written AS (
             INSERT INTO contact_property_values (funnel_id, property_name, contact_id, generation, number_value, date_value)
             SELECT $1, $2, t.id, $7, t.n, t.dt FROM typed t WHERE t.n IS NOT NULL OR t.dt IS NOT NULL
             ON CONFLICT (funnel_id, property_name, contact_id) DO UPDATE SET generation = EXCLUDED.generation,
               number_value = EXCLUDED.number_value, date_value = EXCLUDED.date_value
             RETURNING 1
           ), last AS (SELECT created_at, id FROM chunk ORDER BY created_at DESC, id DESC LIMIT 1)
           SELECT (SELECT count(*) FROM chunk)::int AS copied, (SELECT count(*) FROM written)::int AS written,
                  (SELECT created_at::text FROM last) AS "lastAt", (SELECT id FROM last) AS "lastId"`,
          [funnelId, name, at, id, this.chunk, type, generation],
        );
      const done = copied < this.chunk;
      await manager.query(
        `UPDATE contact_property_definitions
         SET values_ready = $3, values_cursor_created_at = $4::timestamptz, values_cursor = $5
         WHERE funnel_id = $1 AND name = $2`,
        [funnelId, name, done, done ? null : lastAt, done ? null : lastId],
      );
      return !done;
    });
  }

  /** Removes a chunk of a retired generation's rows, and the record of it after the last. */
  async removeChunk({ funnel_id: funnelId, property_name: name, generation }: Retired): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const claimed: unknown[] = await manager.query(
        `SELECT 1 FROM contact_property_values_retired
         WHERE funnel_id = $1 AND property_name = $2 AND generation = $3 FOR UPDATE SKIP LOCKED`,
        [funnelId, name, generation],
      );
      if (!claimed.length) return false;
      const [, removed]: [unknown, number] = await manager.query(
        `DELETE FROM contact_property_values v
         WHERE v.funnel_id = $1 AND v.property_name = $2 AND v.generation = $3 AND v.contact_id IN (
           SELECT o.contact_id FROM contact_property_values o
           WHERE o.funnel_id = $1 AND o.property_name = $2 AND o.generation = $3 LIMIT $4)`,
        [funnelId, name, generation, this.chunk],
      );
      if (removed >= this.chunk) return true;
      await manager.query(
        `DELETE FROM contact_property_values_retired
         WHERE funnel_id = $1 AND property_name = $2 AND generation = $3`,
        [funnelId, name, generation],
      );
      return false;
    });
  }
}

/**
 * Runs the filler in the HTTP app: at start, every PROPERTY_VALUES_FILL_POLL_MS (for work another
 * process's definition left, or a restart), and at once after a definition change here.
 */
@Injectable()
export class ContactPropertyValuesFillerJob implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    private readonly filler: ContactPropertyValuesFiller,
    private readonly config: ConfigService<EnvironmentVariables, true>,
  ) {}

  onApplicationBootstrap(): void {
    this.filler.start(this.config.get('PROPERTY_VALUES_FILL_POLL_MS', { infer: true }));
  }

  onModuleDestroy(): Promise<void> {
    return this.filler.stop();
  }
}
