import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryDeepPartialEntity } from 'typeorm';
import type { AutomationAction, MessageChannel } from '../entities/automation.entity';
import { AutomationRun, RunPayload } from '../entities/automation-run.entity';

/** A run this worker holds the lease of, with what it needs to deliver it. */
export interface ClaimedRun {
  id: string;
  automationId: string;
  funnelId: string;
  contactId: string;
  /** Including this attempt. */
  attempts: number;
  payload: RunPayload;
  lockedBy: string;
  /**
   * For email runs, the contact's subscription as the claim read it (null when the contact no
   * longer exists): read when sending, not frozen with the change.
   */
  recipient?: { unsubscribed: boolean } | null;
  automation: {
    name: string;
    action: AutomationAction;
    webhookUrl: string | null;
    webhookSecretEncrypted: string | null;
    messageChannel: MessageChannel | null;
    messageSubject: string | null;
    messageTemplate: string | null;
    trackEngagement: boolean;
    /** Set when the automation delivers a REST hook subscription. */
    subscriptionId: string | null;
  };
}

interface ClaimedRow {
  id: string;
  automation_id: string;
  funnel_id: string;
  contact_id: string;
  attempts: number;
  payload: RunPayload;
  name: string;
  action: AutomationAction;
  webhook_url: string | null;
  webhook_secret_encrypted: string | null;
  message_channel: MessageChannel | null;
  message_subject: string | null;
  message_template: string | null;
  track_engagement: boolean;
  subscription_id: string | null;
  unsubscribed: boolean | null;
}

// Due = pending and its (retry) time has come, or running with an expired lease (its worker died).
const DUE = `status IN ('pending', 'running') AND next_attempt_at <= now()`;

// The due runs, oldest first, without locks: candidates across every funnel (on Citus, every shard).
const CANDIDATES = `
  SELECT id, funnel_id FROM automation_runs WHERE ${DUE} ORDER BY next_attempt_at LIMIT $1`;

// One funnel's candidates claimed, still due when locked (so a run another worker took meanwhile
// is left out). SKIP LOCKED lets several workers claim side by side without waiting for or taking
// each other's rows. Naming the funnel keeps the locking read on one shard, which Citus requires.
// MATERIALIZED: read once, as a subquery rescanned beside the update would lock past its LIMIT. The
// contact's subscription is read with the funnel as the parameter, which Citus routes to one shard.
const CLAIM = `
  WITH due AS MATERIALIZED (
    SELECT id, funnel_id FROM automation_runs
    WHERE funnel_id = $4 AND id = ANY ($5::uuid[]) AND ${DUE}
    ORDER BY next_attempt_at
    LIMIT $3
    FOR UPDATE SKIP LOCKED
  )
  UPDATE automation_runs AS run
  SET status = 'running', attempts = run.attempts + 1, locked_by = $1,
      next_attempt_at = now() + $2::int * interval '1 millisecond', updated_at = now()
  FROM due, automations AS automation
  WHERE run.funnel_id = $4 AND run.id = due.id AND run.funnel_id = due.funnel_id
    AND automation.id = run.automation_id AND automation.funnel_id = run.funnel_id
  RETURNING run.id, run.automation_id, run.funnel_id, run.contact_id, run.attempts, run.payload,
    automation.name, automation.action, automation.webhook_url, automation.webhook_secret_encrypted,
    automation.message_channel, automation.message_subject, automation.message_template,
    automation.subscription_id, automation.track_engagement,
    CASE WHEN automation.message_channel = 'email' THEN (
      SELECT coalesce((contact.meta->>'ps_unsubscribed') = 'true', false) FROM contacts AS contact
      WHERE contact.funnel_id = $4 AND contact.id = run.contact_id) END AS unsubscribed`;

// Several runs' success at once, each fenced as complete() fences one; answers the ids recorded.
const SUCCEED_MANY = `
  UPDATE automation_runs AS run
  SET status = 'succeeded', completed_at = now(), locked_by = NULL, updated_at = now()
  FROM unnest($1::uuid[], $2::uuid[], $3::varchar[], $4::int[]) AS done(funnel_id, id, locked_by, attempts)
  WHERE run.funnel_id = done.funnel_id AND run.id = done.id AND run.locked_by = done.locked_by
    AND run.attempts = done.attempts AND run.status = 'running'
  RETURNING run.id`;

/** Candidates read per run claimed: runs another worker holds are skipped, so read past them. */
const CANDIDATES_PER_CLAIM = 4;

// Due as the claim sees it (a running run whose lease expired is due again), counted through
// the partial index of unfinished runs: a scrape never reads the finished ones.
const BACKLOG = `
  SELECT count(*) FILTER (WHERE next_attempt_at <= now())::int AS due,
         count(*) FILTER (WHERE status = 'running' AND next_attempt_at > now())::int AS running
  FROM automation_runs
  WHERE status IN ('pending', 'running')`;

/**
 * The outbox as a queue. A claim is one short statement that leases runs to a worker; delivery
 * happens outside any transaction; completion is fenced on (lockedBy, attempts), so a worker whose
 * lease was taken over cannot overwrite the newer attempt's outcome.
 */
@Injectable()
export class AutomationRunQueue {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async claim(workerId: string, limit: number, leaseMs: number): Promise<ClaimedRun[]> {
    const candidates = (await this.dataSource.query(CANDIDATES, [limit * CANDIDATES_PER_CLAIM])) as {
      id: string;
      funnel_id: string;
    }[];
    const byFunnel = new Map<string, string[]>();
    for (const c of candidates) byFunnel.set(c.funnel_id, [...(byFunnel.get(c.funnel_id) ?? []), c.id]);
    const rows: ClaimedRow[] = [];
    for (const [funnelId, ids] of byFunnel) {
      if (rows.length >= limit) break;
      const [claimed] = (await this.dataSource.query(CLAIM, [
        workerId,
        leaseMs,
        limit - rows.length,
        funnelId,
        ids,
      ])) as [ClaimedRow[], number];
      rows.push(...claimed);
    }
    return rows.map((row) => ({
      id: row.id,
      automationId: row.automation_id,
      funnelId: row.funnel_id,
      contactId: row.contact_id,
      attempts: row.attempts,
      payload: row.payload,
      lockedBy: workerId,
      ...(row.message_channel === 'email'
        ? { recipient: row.unsubscribed === null ? null : { unsubscribed: row.unsubscribed } }
        : {}),
      automation: {
        name: row.name,
        action: row.action,
        webhookUrl: row.webhook_url,
        webhookSecretEncrypted: row.webhook_secret_encrypted,
        messageChannel: row.message_channel,
        messageSubject: row.message_subject,
        messageTemplate: row.message_template,
        trackEngagement: row.track_engagement,
        subscriptionId: row.subscription_id,
      },
    }));
  }

  /** Runs waiting to be claimed now (due) and runs leased to a live worker (running). */
  async backlog(): Promise<{ due: number; running: number }> {
    const [row] = (await this.dataSource.query(BACKLOG)) as { due: number; running: number }[];
    return row;
  }

  /** Marks the run succeeded; false when the lease was lost. Pass a manager to commit with other writes. */
  succeed(run: ClaimedRun, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    return this.complete(manager, run, { status: 'succeeded', completedAt: () => 'now()' });
  }

  /** Marks these runs succeeded in one statement; answers the ids whose lease was still held. */
  async succeedMany(runs: ClaimedRun[], manager: EntityManager): Promise<Set<string>> {
    const [rows] = (await manager.query(SUCCEED_MANY, [
      runs.map((run) => run.funnelId),
      runs.map((run) => run.id),
      runs.map((run) => run.lockedBy),
      runs.map((run) => run.attempts),
    ])) as [{ id: string }[], number];
    return new Set(rows.map((row) => row.id));
  }

  retry(run: ClaimedRun, error: string, delayMs: number): Promise<boolean> {
    return this.complete(this.dataSource.manager, run, {
      status: 'pending',
      lastError: error,
      nextAttemptAt: () => `now() + ${Math.round(delayMs)} * interval '1 millisecond'`,
    });
  }

  fail(run: ClaimedRun, error: string): Promise<boolean> {
    return this.complete(this.dataSource.manager, run, {
      status: 'failed',
      lastError: error,
      completedAt: () => 'now()',
    });
  }

  /** Ends the run without delivering it, the reason kept in lastError. */
  skip(run: ClaimedRun, reason: string): Promise<boolean> {
    return this.complete(this.dataSource.manager, run, {
      status: 'skipped',
      lastError: reason,
      completedAt: () => 'now()',
    });
  }

  private async complete(
    manager: EntityManager,
    run: ClaimedRun,
    values: QueryDeepPartialEntity<AutomationRun>,
  ): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .update(AutomationRun)
      .set({ ...values, lockedBy: null })
      .where(
        'funnel_id = :funnelId AND id = :id AND locked_by = :lockedBy AND attempts = :attempts AND status = :running',
        {
          funnelId: run.funnelId,
          id: run.id,
          lockedBy: run.lockedBy,
          attempts: run.attempts,
          running: 'running',
        },
      )
      .execute();
    return result.affected === 1;
  }
}
