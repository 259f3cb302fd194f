import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource, EntityManager } from 'typeorm';
import { BackgroundRounds, EnvironmentVariables } from '@app/core';
import { COUNTED_EVENTS } from '../events/event-definitions';
import { FILTER_NAMES, START_ATTRIBUTES } from '../events/session-definitions';
import { SESSION_COLUMNS, sessionFromRow, SessionRow } from '../events/session-row';
import { bucketStart, MINUTE_MS, SECOND_MS } from '../time/buckets';
import { millis } from '../sql/epoch';
import { COARSER_GRAINS, coarserRows, EventSum, minuteRows, SegmentRow } from './segment-rows';
import { staleMinutesSql } from './segment-state';

/** Funnels looked at per round, whichever process takes them. */
const CANDIDATES = 50;
/** Minutes of new traffic one transaction folds; changes one transaction reads. */
const CHUNK_MINUTES = 60;
const CHANGES_PER_CHUNK = 2000;

const ATTRIBUTE_COLUMNS = FILTER_NAMES.map((name) => START_ATTRIBUTES[name].column);
const iso = (ms: number) => new Date(ms).toISOString();

interface Fold {
  sealed_to: number | null;
  folded_to: number | null;
}

/** [from, to) ranges of whole minutes (epoch ms) covering the given minutes, adjacent ones merged. */
function minuteRanges(minutes: number[]): { from: number; to: number }[] {
  const ranges: { from: number; to: number }[] = [];
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
 * then the quarter hours, hours and days above them from the finer rows, deletes the changes it
 * read and moves `folded_to`. Each transaction claims the funnel's row FOR UPDATE SKIP LOCKED, so
 * any number of processes share the work without waiting on each other, a restart resumes at the
 * watermark, and no session state is kept (it works behind a transaction pooler).
 */
@Injectable()
export class SegmentFolder extends BackgroundRounds {
  protected readonly logger = new Logger(SegmentFolder.name);
  protected readonly failure = 'folding segment rollups failed';
  private readonly lagMs: number;

  constructor(
    private readonly dataSource: DataSource,
    config: ConfigService<EnvironmentVariables, true>,
  ) {
    super();
    this.lagMs = config.get('SEGMENT_FOLD_LAG_SECONDS', { infer: true }) * SECOND_MS;
  }

  /** Folds every funnel up to now less the lag, until nothing is left that no other process holds. */
  async drain(now = Date.now()): Promise<void> {
    const target = bucketStart(now - this.lagMs, 60);
    await this.dataSource.query(
      `INSERT INTO metric_segment_folds (funnel_id) SELECT f.id FROM funnels f
       WHERE NOT EXISTS (SELECT 1 FROM metric_segment_folds s WHERE s.funnel_id = f.id)
       ON CONFLICT DO NOTHING`,
    );
    for (;;) {
      const due: { funnel_id: string }[] = await this.dataSource.query(
        `SELECT f.funnel_id FROM metric_segment_folds f
         WHERE f.folded_to IS NULL OR f.folded_to < $1
            OR EXISTS (SELECT 1 FROM metric_segment_changes c WHERE c.funnel_id = f.funnel_id)
         ORDER BY f.folded_to NULLS FIRST LIMIT ${CANDIDATES}`,
        [iso(target)],
      );
      let progressed = false;
      for (const { funnel_id: funnelId } of due)
        if (!this.stopped && (await this.foldFunnel(funnelId, target))) progressed = true;
      if (!progressed || this.stopped) return;
    }
  }

  /**
   * Seals the funnel up to `target` (epoch ms, a whole minute) and folds until caught up; false
   * when another process holds it.
   */
  async foldFunnel(funnelId: string, target: number): Promise<boolean> {
    if (!(await this.seal(funnelId, target))) return false;
    while (!this.stopped && (await this.foldChunk(funnelId)));
    return true;
  }

  /** Moves the seal to `target`; false when another process holds the funnel. */
  async seal(funnelId: string, target: number): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [fold] = await this.claim(manager, funnelId);
      if (!fold) return false;
      if (fold.sealed_to !== null && fold.sealed_to >= target) return true;
      // Nothing before the funnel's first data needs folding: late data there records changes.
      const start = fold.folded_to ?? Math.min(target, await this.firstMinute(manager, funnelId));
      // The ingestion turn: batches that hold it commit first; later ones read the new seal.
      await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [funnelId]);
      await manager.query(
        `UPDATE metric_segment_folds SET sealed_to = $2, folded_to = $3 WHERE funnel_id = $1`,
        [funnelId, iso(target), iso(start)],
      );
      return true;
    });
  }

  private async claim(manager: EntityManager, funnelId: string): Promise<Fold[]> {
    return manager.query(
      `SELECT ${millis('sealed_to')} AS sealed_to, ${millis('folded_to')} AS folded_to
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
   * Folds the next chunk: the minutes the oldest recorded changes name (before `folded_to`) and
   * up to CHUNK_MINUTES of new minutes before the seal. False when there was nothing to do.
   */
  async foldChunk(funnelId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [fold] = await this.claim(manager, funnelId);
      if (!fold || fold.sealed_to === null || fold.folded_to === null) return false;
      const changes: { seq: string; minute: number | null }[] = await manager.query(
        `WITH c AS (
           SELECT seq, minute, session_id FROM metric_segment_changes WHERE funnel_id = $1 ORDER BY seq LIMIT $2
         )
         SELECT c.seq, x.minute FROM c LEFT JOIN LATERAL (${staleMinutesSql('$1', 'c')}) AS x ON true`,
        [funnelId, CHANGES_PER_CHUNK],
      );
      const seqs = [...new Set(changes.map((c) => c.seq))];
      const foldedTo = fold.folded_to;
      // New minutes from the next that holds data: a stretch without any is passed over at once.
      const next =
        foldedTo < fold.sealed_to
          ? Math.min(fold.sealed_to, await this.firstMinute(manager, funnelId, foldedTo))
          : foldedTo;
      const until = Math.min(fold.sealed_to, next + CHUNK_MINUTES * MINUTE_MS);
      const minutes = changes
        .filter((c) => c.minute !== null && Number(c.minute) < foldedTo)
        .map((c) => Number(c.minute));
      const ranges = minuteRanges(minutes);
      if (next < until) ranges.push({ from: next, to: until });
      if (!ranges.length && !seqs.length && until <= foldedTo) return false;
      if (ranges.length) await this.refold(manager, funnelId, ranges);
      if (seqs.length)
        await manager.query(
          `DELETE FROM metric_segment_changes WHERE funnel_id = $1 AND seq = ANY($2::bigint[])`,
          [funnelId, seqs],
        );
      await manager.query(`UPDATE metric_segment_folds SET folded_to = $2 WHERE funnel_id = $1`, [
        funnelId,
        iso(Math.max(foldedTo, until)),
      ]);
      return true;
    });
  }

  /** Computes the minute rows of the ranges from the raw rows, then the coarser rows above them. */
  private async refold(
    manager: EntityManager,
    funnelId: string,
    minutes: { from: number; to: number }[],
  ): Promise<void> {
    let ranges = minutes;
    const los = ranges.map((r) => iso(r.from));
    const his = ranges.map((r) => iso(r.to));
    const sessionRows: SessionRow[] = await manager.query(
      `SELECT ${SESSION_COLUMNS} FROM unnest($2::timestamptz[], $3::timestamptz[]) AS w(lo, hi)
       CROSS JOIN LATERAL (
         SELECT * FROM metric_sessions m WHERE m.funnel_id = $1 AND m.started_at >= w.lo AND m.started_at < w.hi OFFSET 0
       ) AS metric_sessions`,
      [funnelId, los, his],
    );
    const eventRows: Record<string, unknown>[] = await manager.query(
      `SELECT (floor(extract(epoch FROM e.occurred_at) / 60) * 60000)::float8 AS minute, e.type, coalesce(e.key, '') AS key,
              ${ATTRIBUTE_COLUMNS.map((c) => `m.${c}`).join(', ')},
              count(*)::int AS events, count(e.time_on_page_ms)::int AS timed,
              coalesce(sum(e.time_on_page_ms), 0)::float8 AS total_ms,
              (array_agg(e.button_label ORDER BY e.occurred_at DESC, e.button_label COLLATE "C" DESC)
                 FILTER (WHERE e.button_label IS NOT NULL))[1] AS label,
              ${millis('max(e.occurred_at) FILTER (WHERE e.button_label IS NOT NULL)')} AS label_at
       FROM unnest($2::timestamptz[], $3::timestamptz[]) AS w(lo, hi)
       CROSS JOIN unnest($4::text[]) AS ty(type)
       CROSS JOIN LATERAL (
         SELECT * FROM metric_events e WHERE e.funnel_id = $1 AND e.type = ty.type AND e.occurred_at >= w.lo AND e.occurred_at < w.hi OFFSET 0
       ) AS e
       LEFT JOIN metric_sessions m ON m.funnel_id = $1 AND m.session_id = e.session_id AND m.started_at IS NOT NULL
       GROUP BY 1, 2, 3, ${ATTRIBUTE_COLUMNS.map((c) => `m.${c}`).join(', ')}`,
      [funnelId, los, his, Object.keys(COUNTED_EVENTS)],
    );
    const events: EventSum[] = eventRows.map((r) => ({
      minute: Number(r.minute),
      attributes: ATTRIBUTE_COLUMNS.map((c) => r[c] as string | null),
      type: r.type as string,
      key: r.key as string,
      events: Number(r.events),
      timed: Number(r.timed),
      totalMs: Number(r.total_ms),
      label: r.label as string | null,
      labelAt: r.label_at === null ? null : Number(r.label_at),
    }));
    await this.replace(manager, funnelId, 60, ranges, minuteRows(sessionRows.map(sessionFromRow), events));
    let finer = 60;
    for (const grain of COARSER_GRAINS) {
      const size = grain * SECOND_MS;
      const buckets: { from: number; to: number }[] = [];
      for (const r of ranges)
        for (let b = bucketStart(r.from, grain); b < r.to; b += size)
          if (!buckets.length || buckets[buckets.length - 1].from !== b)
            buckets.push({ from: b, to: b + size });
      const rows = await this.read(manager, funnelId, finer, buckets);
      await this.replace(manager, funnelId, grain, buckets, coarserRows(rows, grain));
      ranges = buckets;
      finer = grain;
    }
  }

  private async read(
    manager: EntityManager,
    funnelId: string,
    grain: number,
    ranges: { from: number; to: number }[],
  ): Promise<SegmentRow[]> {
    const rows: Record<string, unknown>[] = await manager.query(
      `SELECT ${millis('r.bucket')} AS bucket, r.segment, ${ATTRIBUTE_COLUMNS.map((c) => `r.${c}`).join(', ')}, r.sessions, r.events
       FROM unnest($3::timestamptz[], $4::timestamptz[]) AS w(lo, hi)
       CROSS JOIN LATERAL (
         SELECT * FROM metric_segment_rollups r
         WHERE r.funnel_id = $1 AND r.grain = $2 AND r.bucket >= w.lo AND r.bucket < w.hi OFFSET 0
       ) AS r`,
      [funnelId, grain, ranges.map((r) => iso(r.from)), ranges.map((r) => iso(r.to))],
    );
    return rows.map((r) => ({
      grain,
      bucket: Number(r.bucket),
      segment: r.segment as string,
      attributes: ATTRIBUTE_COLUMNS.map((c) => r[c] as string | null),
      sessions: r.sessions as SegmentRow['sessions'],
      events: r.events as SegmentRow['events'],
    }));
  }

  /** Replaces the rows of a grain in the ranges by `rows`. */
  private async replace(
    manager: EntityManager,
    funnelId: string,
    grain: number,
    ranges: { from: number; to: number }[],
    rows: SegmentRow[],
  ): Promise<void> {
    await manager.query(
      `DELETE FROM metric_segment_rollups r USING unnest($3::timestamptz[], $4::timestamptz[]) AS w(lo, hi)
       WHERE r.funnel_id = $1 AND r.grain = $2 AND r.bucket >= w.lo AND r.bucket < w.hi`,
      [funnelId, grain, ranges.map((r) => iso(r.from)), ranges.map((r) => iso(r.to))],
    );
    if (!rows.length) return;
    await manager.query(
      `INSERT INTO metric_segment_rollups (funnel_id, grain, bucket, segment, ${ATTRIBUTE_COLUMNS.join(', ')}, sessions, events)
       SELECT $1, $2, 'epoch'::timestamptz + v.bucket * interval '1 millisecond', v.segment,
              ${ATTRIBUTE_COLUMNS.map((c) => `v.${c}`).join(', ')}, v.sessions, v.events
       FROM json_to_recordset($3::json) AS v(bucket bigint, segment text, ${ATTRIBUTE_COLUMNS.map((c) => `${c} text`).join(', ')},
         sessions jsonb, events jsonb)`,
      [
        funnelId,
        grain,
        JSON.stringify(
          rows.map((r) => ({
            bucket: r.bucket,
            segment: r.segment,
            ...Object.fromEntries(ATTRIBUTE_COLUMNS.map((c, i) => [c, r.attributes[i]])),
            sessions: r.sessions,
            events: r.events,
          })),
        ),
      ],
    );
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
