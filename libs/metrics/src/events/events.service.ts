import { Injectable, Logger } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { FunnelsService } from '@app/workspaces/funnels.service';
import type { IngestResult } from '../dto/events.dto';
import { assertFunnelId } from '../query/funnel-id';
import { eventRollupDeltas, messageRollupDeltas, sessionRollupDeltas } from '../rollups/rollup-deltas';
import { EventPartitions } from './event-partitions';
import {
  addEventRollups,
  addSessionRollups,
  insertEvents,
  readSessions,
  saveMessages,
  saveQuestions,
  saveSessions,
  Sql,
} from './event-store';
import type { TrackedEvent } from './event-types';
import { parseEventBatch } from './event-validation';
import { applyEvents, emptySession, sameSession, SessionState } from './session-state';

const SESSION_SCOPED = new Set(['session_start', 'page_view', 'answer', 'conversion', 'completion']);
// A partition dropped meanwhile (23514), or a deadlock with an operator's statement: retried as a whole.
const RETRYABLE = new Set(['40P01', '40001', '23514']);
const ATTEMPTS = 3;
const WRITERS_PER_FUNNEL = 2;

/**
 * Ingestion of tracking events. One transaction per batch stores the new events and brings
 * sessions and rollups in step with them, with a handful of set-based statements. Batches of one
 * funnel take turns (a transaction-scoped advisory lock on the funnel): a session's state is read,
 * merged and written without races, and no two batches wait on each other's rollup rows in a
 * cycle. Batches of different funnels run in parallel.
 */
@Injectable()
export class EventsService {
  private readonly logger = new Logger(EventsService.name);
  /** Batches of each funnel being written (at most WRITERS_PER_FUNNEL) and those waiting for a turn. */
  private readonly writers = new Map<string, { active: number; waiting: (() => void)[] }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly funnels: FunnelsService,
    private readonly partitions: EventPartitions,
  ) {}

  async ingest(companyId: string, funnelId: string, body: unknown): Promise<IngestResult> {
    assertFunnelId(funnelId);
    const events = parseEventBatch(body);
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    return this.record(funnel.id, events);
  }

  /** Records already validated events of a funnel (the demo seed uses it directly). */
  async record(funnelId: string, events: TrackedEvent[]): Promise<IngestResult> {
    const unique = [...new Map(events.map((e) => [e.eventId, e])).values()];
    // Batches of one funnel take turns anyway (the advisory lock). Two at a time per process keep
    // PostgreSQL busy back to back (one writes, one waits on the lock); more would only fill the
    // connection pool with waiters when a client sends many batches at once.
    const slot = this.writers.get(funnelId) ?? { active: 0, waiting: [] };
    this.writers.set(funnelId, slot);
    if (slot.active >= WRITERS_PER_FUNNEL) await new Promise<void>((resolve) => slot.waiting.push(resolve));
    else slot.active++;
    try {
      return await this.write(funnelId, unique);
    } finally {
      const next = slot.waiting.shift();
      if (next) next();
      else if (--slot.active === 0) this.writers.delete(funnelId);
    }
  }

  private async write(funnelId: string, unique: TrackedEvent[]): Promise<IngestResult> {
    for (let attempt = 1; ; attempt++) {
      await this.partitions.ensure(unique.map((e) => e.occurredAt));
      try {
        return await this.inTransaction((sql) => this.store(sql, funnelId, unique));
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (!code || !RETRYABLE.has(code) || attempt >= ATTEMPTS) throw error;
        if (code === '23514') this.partitions.reset();
        this.logger.warn(`retrying an event batch after ${code} (attempt ${attempt})`);
      }
    }
  }

  /** A transaction on a pooled connection, with named prepared statements (planned once per connection). */
  private async inTransaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    const sql: Sql = async <R>(name: string, text: string, values: unknown[]) =>
      (await client.query({ name, text, values })).rows as R[];
    try {
      await client.query('BEGIN');
      const result = await work(sql);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  private async store(sql: Sql, funnelId: string, events: TrackedEvent[]): Promise<IngestResult> {
    await sql('metrics_lock_funnel', 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [funnelId]);
    const inserted = await insertEvents(sql, funnelId, events);
    const fresh = events.filter((e) => inserted.has(e.eventId));
    if (!fresh.length) return { accepted: 0 };

    const bySession = new Map<string, TrackedEvent[]>();
    for (const e of fresh) {
      if (!SESSION_SCOPED.has(e.type)) continue;
      const list = bySession.get(e.sessionId) ?? [];
      list.push(e);
      bySession.set(e.sessionId, list);
    }
    const changes: { before: SessionState; after: SessionState }[] = [];
    if (bySession.size) {
      const current = await readSessions(sql, funnelId, [...bySession.keys()]);
      for (const [sessionId, sessionEvents] of bySession) {
        const before = current.get(sessionId) ?? emptySession(sessionId);
        const after = applyEvents(before, sessionEvents);
        if (!sameSession(before, after)) changes.push({ before, after });
      }
      await saveSessions(
        sql,
        funnelId,
        changes.map((c) => c.after),
      );
    }
    const messages = await saveMessages(sql, funnelId, fresh);
    await addEventRollups(sql, funnelId, [...eventRollupDeltas(fresh), ...messageRollupDeltas(messages)]);
    await addSessionRollups(sql, funnelId, sessionRollupDeltas(changes));
    await saveQuestions(sql, funnelId, fresh);
    return { accepted: fresh.length };
  }
}
