import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource, EntityManager } from 'typeorm';
import { BackgroundRounds, EnvironmentVariables, MonotonicClock } from '@app/core';
import { COUNTED_EVENTS } from '../events/event-definitions';
import { IngestionActivity } from '../events/ingestion-activity';
import { bucketStart, MINUTE_MS, SECOND_MS } from '../time/buckets';
import type { Range } from '../time/time-cover';
import { millis } from '../sql/epoch';
import { SegmentFoldMetrics } from './segment-fold.metrics';
import { refold } from './segment-refold';
import { countedEventBetweenSql } from './segment-sql';
import { staleMinutesSql } from './segment-state';

/** Funnels one statement chooses; a round goes through all of them, each once. */
const CANDIDATES = 50;

/**
 * What one transaction folds: the new minutes up to the first `boundary` (seconds) at least
 * `minutes` after the chunk's start, and at most `changes` recorded changes.
 */
export interface ChunkSize {
  minutes: number;
  boundary: number;
  changes: number;
}

/**
 * A chunk while ingestion is quiet: an hour, whose quarter hours and hours are summed from its
 * minutes, and as many changes (a minute each, or the few of a session). A chunk holds the
 * sessions of its minutes in memory, so the minutes changes name are bounded like new minutes:
 * with 2,000 changes a chunk, a day of past traffic imported into a folded funnel (320,000 events,
 * 98,000 sessions) took the service past its 160 MB heap, and again at each restart.
 */
const WHOLE_CHUNK: ChunkSize = { minutes: 60, boundary: 3600, changes: 60 };
/**
 * A chunk while this process ingests: a quarter hour, and as many changes. The fold yields a
 * share of its time by the chunk (SHARE_WHILE_INGESTING), so a chunk must be short beside a
 * burst: an hour of 10,000,000 events a month took 110 to 190 ms at full speed, a core taken from
 * batches for as long, once in a burst of a few seconds.
 */
const CHUNK_WHILE_INGESTING: ChunkSize = { minutes: 15, boundary: 900, changes: 15 };
/** An idle funnel is still visited once a day, so that the check for its new traffic reads a day at most. */
const IDLE_VISIT_MS = 86_400_000;
/**
 * The share of its time the fold works while this process ingests: after a chunk of t ms it
 * waits t × (1 / share − 1) ms. At a fiftieth it still folds several hundred events a second (a
 * fiftieth of the 24,000 to 45,000 it folds on one core, docs/BENCHMARKS.md), ten times the 40 a
 * second of 100 M events a month, and a burst of ingestion keeps the CPUs it would otherwise share
 * with the fold (at a tenth, ingestion measured about a tenth slower at 600,000 events); once
 * ingestion is quiet it folds at full speed.
 */
export const SHARE_WHILE_INGESTING = 0.02;

/** The last change recorded for funnel `funnel` (0 when none), as text. */
const lastSeqSql = (funnel: string) =>
  `(SELECT coalesce(max(c.seq), 0) FROM metric_segment_changes c WHERE c.funnel_id = ${funnel})::text`;

const iso = (ms: number) => new Date(ms).toISOString();

interface Fold {
  sealed_to: number | null;
  folded_to: number | null;
  /** The last change recorded (0 when none). */
  last_seq: string;
}

/** [from, to) ranges of whole minutes (epoch ms) covering the given minutes, adjacent ones merged. */
function minuteRanges(minutes: number[]): Range[] {
  const ranges: Range[] = [];
  for (const m of [...new Set(minutes)].sort((a, b) => a - b)) {
    const last = ranges[ranges.length - 1];
    if (last && last.to === m) last.to = m + MINUTE_MS;
    else ranges.push({ from: m, to: m + MINUTE_MS });
  }
  return ranges;
}

/**
 * Folds raw sessions and events into the segment rollups (metric_segment_rollups) after
 * ingestion, so that ingestion writes none of them. Per funnel it moves two watermarks
 * (metric_segment_folds): it first seals up to SEGMENT_FOLD_LAG_SECONDS before now, in a short
 * transaction that takes the funnel's ingestion turn, so every batch committed after it records
 * its changes at or before the seal (segment-changes.ts) and every batch before it is visible;
 * then it folds, a chunk per transaction, the minutes up to the seal and the minutes that
 * recorded changes name, each computed whole from the raw rows (so folding again is harmless),
 * then the whole quarter hours, hours and days above them from the finer rows, deletes the
 * changes it read and moves `folded_to`. Each transaction claims the funnel's row FOR UPDATE SKIP
 * LOCKED, so any number of processes share the work without waiting on each other, a restart
 * resumes at the watermark, and no session state is kept (it works behind a transaction pooler).
 *
 * A round visits only the funnels with something to fold (one statement chooses them: recorded
 * changes, or traffic past the seal), each once: changes recorded while it folds wait for the
 * next round, so late traffic arriving in bulk has its minutes folded once a round, not again
 * after every batch.
 *
 * While the process ingests, the fold yields: a scheduled round first waits for ingestion to pause
 * (waitForQuiet), and a round that folds while it ingests works a fiftieth of the time
 * (yieldToIngestion), in chunks of a quarter hour (CHUNK_WHILE_INGESTING).
 */
@Injectable()
export class SegmentFolder extends BackgroundRounds {
  protected readonly logger = new Logger(SegmentFolder.name);
  protected readonly failure = 'folding segment rollups failed';
  private readonly lagMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly ingestion: IngestionActivity,
    private readonly metrics: SegmentFoldMetrics,
    private readonly clock: MonotonicClock,
    config: ConfigService<EnvironmentVariables, true>,
  ) {
    super();
    this.lagMs = config.get('SEGMENT_FOLD_LAG_SECONDS', { infer: true }) * SECOND_MS;
  }

  /** A scheduled round: once ingestion pauses (waitForQuiet), folds everything due. */
  protected override async scheduledRound(): Promise<void> {
    await this.waitForQuiet();
    if (!this.stopped) await this.drain();
  }

  /**
   * While this process ingests, waits for it to pause (IngestionActivity: a second without
   * batches), for one poll interval at most. A burst of a few seconds then keeps the CPUs and the
   * funnel's turn it would share with the fold's seal and first chunk, and its batches record no
   * changes behind a seal moved during it; traffic that never pauses delays each round by an
   * interval, and the round then yields as it folds (yieldToIngestion). Reads are exact either
   * way: minutes not yet folded are read raw.
   */
  private waitForQuiet(): Promise<void> {
    return this.waitWhileIngesting(this.pollMs ?? 0);
  }

  /** Folds every funnel that needs it up to now less the lag, unless another process holds it. */
  async drain(now = Date.now()): Promise<void> {
    const target = bucketStart(now - this.lagMs, 60);
    // Not a correlated subquery: Citus refuses one over the funnels' reference table.
    await this.dataSource.query(
      `INSERT INTO metric_segment_folds (funnel_id) SELECT f.id FROM funnels f
       WHERE f.id NOT IN (SELECT s.funnel_id FROM metric_segment_folds s)
       ON CONFLICT DO NOTHING`,
    );
    let after: string | null = null;
    for (;;) {
      const due = await this.due(target, after);
      for (const funnelId of due) {
        if (this.stopped) return;
        await this.foldFunnel(funnelId, target);
      }
      if (due.length < CANDIDATES) return;
      after = due[due.length - 1];
    }
  }

  /**
   * The next funnels (after `after`, by id) with something to fold up to `target`: never sealed,
   * folded short of the seal, with recorded changes (what batches wrote at or before the seal),
   * with sessions started or events counted between the seal and `target` (one index probe
   * each), or not visited for a day. A funnel without new traffic is passed over: nothing of it
   * is locked or written.
   */
  private async due(target: number, after: string | null): Promise<string[]> {
    const rows: { funnel_id: string }[] = await this.dataSource.query(
      `SELECT f.funnel_id FROM metric_segment_folds f
       WHERE ($2::uuid IS NULL OR f.funnel_id > $2::uuid)
         AND (f.sealed_to IS NULL OR f.folded_to IS NULL OR f.folded_to < f.sealed_to OR f.sealed_to < $3
           OR EXISTS (SELECT 1 FROM metric_segment_changes c WHERE c.funnel_id = f.funnel_id)
           OR f.sealed_to < $1 AND (
             EXISTS (SELECT 1 FROM metric_sessions s
                     WHERE s.funnel_id = f.funnel_id AND s.started_at >= f.sealed_to AND s.started_at < $1)
             OR ${countedEventBetweenSql('f.funnel_id', '$4::text[]', 'f.sealed_to', '$1')}))
       ORDER BY f.funnel_id LIMIT ${CANDIDATES}`,
      [iso(target), after, iso(target - IDLE_VISIT_MS), Object.keys(COUNTED_EVENTS)],
    );
    return rows.map((r) => r.funnel_id);
  }

  /**
   * Seals the funnel up to `target` (epoch ms, a whole minute) and folds until caught up with the
   * changes recorded before the seal; false when another process holds it.
   */
  async foldFunnel(funnelId: string, target: number): Promise<boolean> {
    const lastSeq = await this.seal(funnelId, target);
    if (lastSeq === null) return false;
    while (!this.stopped) {
      const started = this.clock.now();
      const size = this.ingestion.busy() ? CHUNK_WHILE_INGESTING : WHOLE_CHUNK;
      if (!(await this.foldChunk(funnelId, lastSeq, size))) break;
      this.metrics.chunkFolded();
      await this.yieldToIngestion(this.clock.now() - started);
    }
    return true;
  }

  /**
   * After a chunk that took `spentMs`, while this process ingests: waits until the chunk is
   * SHARE_WHILE_INGESTING of the time spent, or less once ingestion is quiet.
   */
  private yieldToIngestion(spentMs: number): Promise<void> {
    return this.waitWhileIngesting(spentMs * (1 / SHARE_WHILE_INGESTING - 1));
  }

  /**
   * Waits up to `ms` while this process ingests, in pauses of 100 ms at most so that the wait ends
   * soon after ingestion does; the time waited counts as yielded to ingestion.
   */
  private async waitWhileIngesting(ms: number): Promise<void> {
    const started = this.clock.now();
    const until = started + ms;
    let paused = false;
    for (let left = ms; left > 0 && !this.stopped && this.ingestion.busy();) {
      await this.pause(Math.min(left, 100));
      paused = true;
      left = until - this.clock.now();
    }
    if (paused) this.metrics.waitedForIngestion(this.clock.now() - started);
  }

  /**
   * Moves the seal to `target`; the last change recorded by then, or null when another process
   * holds the funnel.
   */
  async seal(funnelId: string, target: number): Promise<string | null> {
    return this.dataSource.transaction(async (manager) => {
      const [fold] = await this.claim(manager, funnelId);
      if (!fold) return null;
      if (fold.sealed_to !== null && fold.sealed_to >= target) return fold.last_seq;
      // Nothing before the funnel's first data needs folding: late data there records changes.
      const start = fold.folded_to ?? Math.min(target, await this.firstMinute(manager, funnelId));
      // The ingestion turn: batches that hold it commit first; later ones read the new seal.
      await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [funnelId]);
      const [row]: { last_seq: string }[] = await manager.query(
        `WITH sealed AS (UPDATE metric_segment_folds SET sealed_to = $2, folded_to = $3 WHERE funnel_id = $1)
         SELECT ${lastSeqSql('$1')} AS last_seq`,
        [funnelId, iso(target), iso(start)],
      );
      return row.last_seq;
    });
  }

  private async claim(manager: EntityManager, funnelId: string): Promise<Fold[]> {
    return manager.query(
      `SELECT ${millis('sealed_to')} AS sealed_to, ${millis('folded_to')} AS folded_to,
              ${lastSeqSql('$1')} AS last_seq
       FROM metric_segment_folds WHERE funnel_id = $1 FOR UPDATE SKIP LOCKED`,
      [funnelId],
    );
  }

  /** The first minute at or after `from` (epoch ms) that holds a started session or a counted event. */
  private async firstMinute(manager: EntityManager, funnelId: string, from = -Infinity): Promise<number> {
    const after = Number.isFinite(from) ? iso(from) : null;
    const [row]: { first: number | null }[] = await manager.query(
      `SELECT ${millis('least(s.first, e.first)')} AS first FROM
         (SELECT min(started_at) AS first FROM metric_sessions
          WHERE funnel_id = $1 AND started_at IS NOT NULL AND ($3::timestamptz IS NULL OR started_at >= $3)) AS s,
         (SELECT min(t.first) AS first FROM unnest($2::text[]) AS ty(type) CROSS JOIN LATERAL (
            SELECT min(occurred_at) AS first FROM metric_events
            WHERE funnel_id = $1 AND type = ty.type AND ($3::timestamptz IS NULL OR occurred_at >= $3)) AS t) AS e`,
      [funnelId, Object.keys(COUNTED_EVENTS), after],
    );
    return row.first === null ? Infinity : bucketStart(row.first, 60);
  }

  /**
   * Folds the next chunk of `size`: the minutes the oldest recorded changes up to `lastSeq` name
   * (before `folded_to`) and the new minutes before the seal from the next that holds data to the
   * chunk's boundary. False when there was nothing to do.
   */
  async foldChunk(funnelId: string, lastSeq: string, size: ChunkSize = WHOLE_CHUNK): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [fold] = await this.claim(manager, funnelId);
      if (!fold || fold.sealed_to === null || fold.folded_to === null) return false;
      const changes: { seq: string; minute: number | null }[] = await manager.query(
        `WITH c AS (
           SELECT seq, minute, session_id FROM metric_segment_changes
           WHERE funnel_id = $1 AND seq <= $3::bigint ORDER BY seq LIMIT $2
         )
         SELECT c.seq, x.minute FROM c LEFT JOIN LATERAL (${staleMinutesSql('$1', 'c')}) AS x ON true`,
        [funnelId, size.changes, lastSeq],
      );
      const seqs = [...new Set(changes.map((c) => c.seq))];
      const foldedTo = fold.folded_to;
      // New minutes from the next that holds data: a stretch without any is passed over at once.
      const next =
        foldedTo < fold.sealed_to
          ? Math.min(fold.sealed_to, await this.firstMinute(manager, funnelId, foldedTo))
          : foldedTo;
      // Ending at a boundary of a coarser grain, the chunk's buckets of it are summed from its minutes.
      const until = Math.min(fold.sealed_to, bucketStart(next + size.minutes * MINUTE_MS, size.boundary));
      const minutes = changes
        .filter((c) => c.minute !== null && Number(c.minute) < foldedTo)
        .map((c) => Number(c.minute));
      const ranges = minuteRanges(minutes);
      if (next < until) ranges.push({ from: next, to: until });
      const foldedAfter = Math.max(foldedTo, until);
      if (!ranges.length && !seqs.length && foldedAfter === foldedTo) return false;
      if (ranges.length || foldedAfter > foldedTo)
        await refold(manager, funnelId, ranges, foldedTo, foldedAfter);
      await manager.query(
        `WITH folded AS (DELETE FROM metric_segment_changes WHERE funnel_id = $1 AND seq = ANY($3::bigint[]))
         UPDATE metric_segment_folds SET folded_to = $2 WHERE funnel_id = $1`,
        [funnelId, iso(foldedAfter), seqs],
      );
      return true;
    });
  }
}

/** Runs the folder in the HTTP app: at start and every SEGMENT_FOLD_POLL_MS. */
@Injectable()
export class SegmentFolderJob implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    private readonly folder: SegmentFolder,
    private readonly config: ConfigService<EnvironmentVariables, true>,
  ) {}

  onApplicationBootstrap(): void {
    this.folder.start(this.config.get('SEGMENT_FOLD_POLL_MS', { infer: true }));
  }

  onModuleDestroy(): Promise<void> {
    return this.folder.stop();
  }
}
