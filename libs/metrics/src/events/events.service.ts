import { Injectable, Logger } from '@nestjs/common';
import type { PoolClient, QueryResult } from 'pg';
import { DataSource } from 'typeorm';
import { NotFoundError } from '@app/core';
import type { IngestResult } from '../dto/events.dto';
import { assertFunnelId } from '../query/funnel-id';
import { segmentChanges } from '../segments/segment-changes';
import {
  STEP_EVENT_TYPES,
  StepKeyNumbers,
  stepMarks,
  stepReaches,
  stepSummaryRowsJson,
} from '../steps/step-marks';
import { CompanyWriters } from './company-writers';
import { ContactConversions } from './contact-conversions';
import { EventPartitions } from './event-partitions';
import { EventRetention } from './event-retention';
import { IngestionActivity } from './ingestion-activity';
import { IngestionMetrics } from './ingestion.metrics';
import { latestQuestionTitles, writeBatch } from './batch-writes';
import { beginFunnelTransaction, insertEvents, lockFunnelAndReadSessions, Sql } from './event-store';
import type { TrackedEvent } from './event-types';
import { parseEventBatch } from './event-validation';
import { saveMessages } from './message-store';
import { applyEvents, emptySession, sameSession, SessionState } from './session-state';

const SESSION_SCOPED = new Set(['session_start', 'page_view', 'answer', 'conversion', 'completion']);
// A partition dropped meanwhile (23514), or a deadlock with an operator's statement: retried as a whole.
const RETRYABLE = new Set(['40P01', '40001', '23514']);
const ATTEMPTS = 3;
// Batches waiting for their funnel are written together, up to this many events per transaction.
const MAX_GROUP_EVENTS = 5000;
// Transactions of a funnel in flight from this process: one storing its events while another
// holds the funnel's turn. More would only wait for the turn.
const WRITERS_PER_FUNNEL = 2;

/** A batch waiting for its funnel's turn. `companyId` null: a trusted caller (the demo seed). */
interface PendingBatch {
  companyId: string | null;
  events: TrackedEvent[];
  /** Written in a transaction of its own (after its group failed). */
  alone?: boolean;
  resolve: (result: IngestResult) => void;
  reject: (error: unknown) => void;
}

/** A funnel's batches waiting for a writer, and its writers running (while any are waiting). */
interface FunnelQueue {
  waiting: PendingBatch[];
  writers: number;
}

/**
 * Ingestion of tracking events. One transaction stores the new events, then takes the funnel's
 * turn (an advisory lock) to bring sessions and step summaries in step with them: a session's
 * state is read, merged and written without races, and no two transactions wait on each other's
 * rows in a cycle. Storing events needs no turn, so a funnel's next transaction stores its events
 * while the current one holds the turn. In a process, batches that arrive for a funnel while it is
 * being written are written together in its next transaction (a group commit): the per-transaction
 * costs are paid once, and each batch is answered only once its
 * events are committed. Different funnels run in parallel.
 */
@Injectable()
export class EventsService {
  private readonly logger = new Logger(EventsService.name);
  private readonly queues = new Map<string, FunnelQueue>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly partitions: EventPartitions,
    private readonly metrics: IngestionMetrics,
    private readonly retention: EventRetention,
    private readonly activity: IngestionActivity,
    private readonly stepKeys: StepKeyNumbers,
    private readonly conversions: ContactConversions,
    private readonly writers: CompanyWriters,
  ) {}

  /** Validates and records a batch for a funnel of the company (another company's funnel is a 404). */
  async ingest(companyId: string, funnelId: string, body: unknown): Promise<IngestResult> {
    assertFunnelId(funnelId);
    const events = parseEventBatch(body);
    await this.retention.assertKept(events);
    const result = await this.enqueue(funnelId.toLowerCase(), companyId, events);
    this.metrics.batchStored(events.length, result.accepted);
    await this.conversions.stored(funnelId.toLowerCase(), events);
    return result;
  }

  /** Records already validated events of a funnel (the demo seed uses it directly). */
  async record(funnelId: string, events: TrackedEvent[]): Promise<IngestResult> {
    return this.enqueue(funnelId.toLowerCase(), null, events);
  }

  private enqueue(funnelId: string, companyId: string | null, events: TrackedEvent[]): Promise<IngestResult> {
    return new Promise((resolve, reject) => {
      let queue = this.queues.get(funnelId);
      if (!queue) this.queues.set(funnelId, (queue = { waiting: [], writers: 0 }));
      queue.waiting.push({ companyId, events, resolve, reject });
      if (queue.writers < WRITERS_PER_FUNNEL) {
        queue.writers++;
        void this.drain(funnelId, queue);
      }
    });
  }

  /** A writer: writes the funnel's waiting batches, a group per transaction, until none is left. */
  private async drain(funnelId: string, queue: FunnelQueue): Promise<void> {
    this.activity.begin();
    try {
      while (queue.waiting.length) {
        const group = takeGroup(queue.waiting);
        // A company's share of the pool; the demo seed (no company) is trusted.
        const companyId = group[0].companyId;
        const release = companyId ? await this.writers.acquire(companyId) : () => undefined;
        try {
          const results = await this.writeGroup(funnelId, group);
          group.forEach((batch, i) => batch.resolve(results[i]));
        } catch (error) {
          if (group.length === 1) group[0].reject(error);
          // One batch must not fail the others: each is tried again on its own.
          else queue.waiting.unshift(...group.map((batch) => ({ ...batch, alone: true })));
        } finally {
          release();
        }
      }
    } finally {
      this.activity.end();
      if (--queue.writers === 0) this.queues.delete(funnelId);
    }
  }

  private async writeGroup(funnelId: string, group: PendingBatch[]): Promise<IngestResult[]> {
    // Each event once: a repeat in the same or a later batch of the group is that batch's repeat.
    const seen = new Set<string>();
    const firsts = group.map((batch) =>
      batch.events.filter((e) => {
        if (seen.has(e.eventId)) return false;
        seen.add(e.eventId);
        return true;
      }),
    );
    const events = firsts.flat();
    for (let attempt = 1; ; attempt++) {
      await this.partitions.ensure(events.map((e) => e.occurredAt));
      try {
        const inserted = await this.inTransaction(funnelId, group[0].companyId, (sql) =>
          this.store(sql, funnelId, events),
        );
        return firsts.map((own) => ({
          accepted: inserted === 'all' ? own.length : own.filter((e) => inserted.has(e.eventId)).length,
        }));
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (!code || !RETRYABLE.has(code) || attempt >= ATTEMPTS) throw error;
        if (code === '23514') this.partitions.reset();
        this.logger.warn(`retrying an event batch after ${code} (attempt ${attempt})`);
      }
    }
  }

  /** A transaction on the funnel (checked first), on a pooled connection with named prepared statements. */
  private async inTransaction<T>(
    funnelId: string,
    companyId: string | null,
    work: (sql: Sql) => Promise<T>,
  ): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    const sql: Sql = async <R>(name: string, text: string, values: unknown[]) =>
      (await client.query({ name, text, values })).rows as R[];
    try {
      const begun = (await client.query(
        beginFunnelTransaction(funnelId, companyId),
      )) as unknown as QueryResult[];
      if (!(begun.at(-1) as QueryResult).rows.length) throw new NotFoundError('Funnel not found');
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

  /**
   * Stores the events, then in the funnel's turn merges the sessions and step summaries of those
   * that were new; returns their ids, or `all`. What the new events decide alone (their
   * question titles, step marks, the sessions they touch) is computed before the turn, which a
   * funnel's batches take one at a time: the turn is spent on what needs the stored sessions.
   */
  private async store(sql: Sql, funnelId: string, events: TrackedEvent[]): Promise<Set<string> | 'all'> {
    const inserted = await insertEvents(sql, funnelId, events);
    const fresh = inserted === 'all' ? events : events.filter((e) => inserted.has(e.eventId));
    if (!fresh.length) return inserted;

    // The sessions the events change, and those whose step summaries they add to (which copy the
    // session's start and filter attributes).
    const sessionIds = new Set<string>();
    const bySession = new Map<string, TrackedEvent[]>();
    for (const e of fresh) {
      if (STEP_EVENT_TYPES.has(e.type)) sessionIds.add(e.sessionId);
      if (!SESSION_SCOPED.has(e.type)) continue;
      sessionIds.add(e.sessionId);
      const list = bySession.get(e.sessionId);
      if (list) list.push(e);
      else bySession.set(e.sessionId, [e]);
    }
    const reaches = stepReaches(fresh);
    const knownMarks = stepMarks(reaches, this.stepKeys.known(funnelId));
    const questions = latestQuestionTitles(fresh);

    const sessions = await lockFunnelAndReadSessions(sql, funnelId, [...sessionIds]);
    const changes: { before: SessionState; after: SessionState }[] = [];
    for (const [sessionId, sessionEvents] of bySession) {
      const before = sessions.get(sessionId) ?? emptySession(sessionId);
      const after = applyEvents(before, sessionEvents);
      if (!sameSession(before, after)) changes.push({ before, after });
    }
    await saveMessages(sql, funnelId, fresh);
    const marks = knownMarks ?? (await this.stepKeys.marks(sql, funnelId, reaches));
    const after = new Map(changes.map((c) => [c.after.sessionId, c.after]));
    const stateOf = (id: string) => after.get(id) ?? sessions.get(id) ?? emptySession(id);
    await writeBatch(sql, funnelId, {
      sessions: changes.map((c) => c.after),
      questions,
      segmentChanges: segmentChanges(fresh, changes),
      stepSummaries: stepSummaryRowsJson(marks, changes, stateOf),
    });
    return inserted;
  }
}

/** The next batches to write together: the first waiting one and those after it of the same caller. */
function takeGroup(queue: PendingBatch[]): PendingBatch[] {
  const first = queue.shift() as PendingBatch;
  const group: PendingBatch[] = [first];
  if (first.alone) return group;
  let size = first.events.length;
  while (queue.length) {
    const next = queue[0];
    if (next.alone || next.companyId !== first.companyId || size + next.events.length > MAX_GROUP_EVENTS)
      break;
    group.push(queue.shift() as PendingBatch);
    size += next.events.length;
  }
  return group;
}
