import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource, EntityManager } from 'typeorm';
import { BackgroundRounds, EnvironmentVariables, MonotonicClock } from '@app/core';
import { COUNTED_EVENTS } from '../events/event-definitions';
import { IngestionActivity } from '../events/ingestion-activity';
import { iso } from '../sql/epoch';
import { bucketStart, MINUTE_MS, SECOND_MS } from '../time/buckets';
import type { Range } from '../time/time-cover';
import { SegmentFoldMetrics } from './segment-fold.metrics';
import { refold } from './segment-refold';
import { CANDIDATES, FOLDER_SQL } from './folder-sql';

/**
 * What one transaction folds: the new minutes up to the first `boundary` (seconds) at least
 * `minutes` after the chunk's start, cut short before the minute that would bring the sessions
 * started in them past `sessions` (one minute at least: a minute is folded whole), and at most
 * `changes` recorded changes.
 */
interface ChunkSize {
  minutes: number;
  boundary: number;
  sessions: number;
  changes: number;
}

/**
 * A chunk while ingestion is quiet: an hour, whose quarter hours and hours are summed from its
 * minutes, or fewer minutes holding 20,000 sessions (an hour holds about 18,000 at 100 M events
 * a month), and 60 changes (a minute each, or the few of a session). A chunk holds the sessions of
 * its minutes in memory, so their number bounds its memory whatever the traffic's density: with
 * 2,000 changes a chunk, a day of past traffic imported into a folded funnel (320,000 events,
 * 98,000 sessions) took the service past its 160 MB heap, and again at each restart.
 */
const WHOLE_CHUNK: ChunkSize = { minutes: 60, boundary: 3600, sessions: 20_000, changes: 60 };
/**
 * A chunk while this process ingests: a quarter hour (or 5,000 sessions), and as many changes.
 * The fold yields a share of its time by the chunk (SHARE_WHILE_INGESTING), so a chunk must be
 * short beside a burst: an hour of 10,000,000 events a month took 110 to 190 ms at full speed, a
 * core taken from batches for as long, once in a burst of a few seconds.
 */
const CHUNK_WHILE_INGESTING: ChunkSize = { minutes: 15, boundary: 900, sessions: 5_000, changes: 15 };
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
    await this.dataSource.query(FOLDER_SQL.register);
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
    const rows: { funnel_id: string }[] = await this.dataSource.query(FOLDER_SQL.due, [
      iso(target),
      after,
      iso(target - IDLE_VISIT_MS),
      Object.keys(COUNTED_EVENTS),
    ]);
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
      const [fold]: Fold[] = await manager.query(FOLDER_SQL.claim, [funnelId]);
      if (!fold) return null;
      if (fold.sealed_to !== null && fold.sealed_to >= target) return fold.last_seq;
      // Nothing before the funnel's first data needs folding: late data there records changes.
      const start = fold.folded_to ?? Math.min(target, await this.firstMinute(manager, funnelId));
      // The ingestion turn: batches that hold it commit first; later ones read the new seal.
      await manager.query(FOLDER_SQL.turn, [funnelId]);
      const [row]: { last_seq: string }[] = await manager.query(FOLDER_SQL.seal, [
        funnelId,
        iso(target),
        iso(start),
      ]);
      return row.last_seq;
    });
  }

  /** The first minute at or after `from` (epoch ms) that holds a started session or a counted event. */
  private async firstMinute(manager: EntityManager, funnelId: string, from = -Infinity): Promise<number> {
    const after = Number.isFinite(from) ? iso(from) : null;
    const [row]: { first: number | null }[] = await manager.query(FOLDER_SQL.firstMinute, [
      funnelId,
      Object.keys(COUNTED_EVENTS),
      after,
    ]);
    return row.first === null ? Infinity : bucketStart(row.first, 60);
  }

  /**
   * The end of the new minutes from `from` to `until` (epoch ms, whole minutes) that hold at most
   * `sessions` started sessions: the minute of the first session past them (one minute at least).
   */
  private async sessionsBound(
    manager: EntityManager,
    funnelId: string,
    from: number,
    until: number,
    sessions: number,
  ): Promise<number> {
    if (from >= until) return until;
    const [row]: { at: number }[] = await manager.query(FOLDER_SQL.sessionPastBound, [
      funnelId,
      iso(from),
      iso(until),
      sessions,
    ]);
    return row ? Math.max(from + MINUTE_MS, bucketStart(Number(row.at), 60)) : until;
  }

  /**
   * Folds the next chunk of `size`: the minutes the oldest recorded changes up to `lastSeq` name
   * (before `folded_to`) and the new minutes before the seal from the next that holds data to the
   * chunk's boundary. False when there was nothing to do.
   */
  async foldChunk(funnelId: string, lastSeq: string, size: ChunkSize): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [fold]: Fold[] = await manager.query(FOLDER_SQL.claim, [funnelId]);
      if (!fold || fold.sealed_to === null || fold.folded_to === null) return false;
      const changes: { seq: string; minute: number | null }[] = await manager.query(FOLDER_SQL.changes, [
        funnelId,
        size.changes,
        lastSeq,
      ]);
      const seqs = [...new Set(changes.map((c) => c.seq))];
      const foldedTo = fold.folded_to;
      // New minutes from the next that holds data: a stretch without any is passed over at once.
      const next =
        foldedTo < fold.sealed_to
          ? Math.min(fold.sealed_to, await this.firstMinute(manager, funnelId, foldedTo))
          : foldedTo;
      // Ending at a boundary of a coarser grain, the chunk's buckets of it are summed from its minutes.
      const until = await this.sessionsBound(
        manager,
        funnelId,
        next,
        Math.min(fold.sealed_to, bucketStart(next + size.minutes * MINUTE_MS, size.boundary)),
        size.sessions,
      );
      const minutes = changes
        .filter((c) => c.minute !== null && Number(c.minute) < foldedTo)
        .map((c) => Number(c.minute));
      const ranges = minuteRanges(minutes);
      if (next < until) ranges.push({ from: next, to: until });
      const foldedAfter = Math.max(foldedTo, until);
      if (!ranges.length && !seqs.length && foldedAfter === foldedTo) return false;
      if (ranges.length || foldedAfter > foldedTo)
        await refold(manager, funnelId, ranges, foldedTo, foldedAfter);
      await manager.query(FOLDER_SQL.advance, [funnelId, iso(foldedAfter), seqs]);
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
