import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { MetricWindow, SessionFilter } from '../query/metric-query';
import { sessionFilterSql } from '../rollups/session-filter-sql';
import { SqlParams } from '../sql/sql-params';
import { FunnelStep } from './funnel-steps';
import {
  bucketsToRead,
  ESTIMATE_BUCKETS,
  firstBuckets,
  SAMPLE_BUCKETS,
  sampleBucketSql,
} from './session-sample';
import { MARK_EPOCH_MS, MARK_KEY_SQL, MAX_MARK_KEY_ID } from './step-marks';

/** How many sessions reached each step, and the median seconds from the step before. */
interface StepCounts {
  sessions: number;
  medianSeconds: number | null;
}

/** A step funnel as read: its counts over the `sessions` read, every one of the period when `exact`. */
interface StepFunnelRead {
  counts: StepCounts[];
  sessions: number;
  exact: boolean;
}

/**
 * Reads a step funnel from the sessions' step summaries (metric_session_steps): one row per
 * session that started in the window (and matches the filter), by the start index. Per session,
 * step i is reached at the first mark of its key at or after step i-1 (the start for the first),
 * found by a binary search of the session's sorted marks, and counts when it is at most `withinMs`
 * after the start. Each step is its own level of the query (OFFSET 0 keeps the planner from
 * inlining it into the next, which would search once per later step), then one pass counts and
 * takes medians.
 *
 * A period estimated to hold more than `sampleSessions` sessions (matching the filter) is read from
 * a uniform sample of about that many, the sessions of the first buckets (session-sample.ts), unless
 * the caller asks for an exact answer: a read of every session is linear in the period's traffic.
 */
@Injectable()
export class StepFunnelReader {
  constructor(private readonly dataSource: DataSource) {}

  async steps(
    funnelId: string,
    window: MetricWindow,
    steps: FunnelStep[],
    withinMs: number,
    filter: SessionFilter,
    sampling: { exact: boolean; sampleSessions: number },
  ): Promise<StepFunnelRead> {
    let buckets = SAMPLE_BUCKETS;
    if (!sampling.exact) {
      const estimate = sessionsInBucketsSql(funnelId, window, filter, ESTIMATE_BUCKETS);
      const [{ sessions }]: { sessions: string }[] = await this.dataSource.query(
        estimate.text,
        estimate.values,
      );
      buckets = bucketsToRead(Number(sessions), sampling.sampleSessions);
    }
    const { text, values } = stepFunnelSql(funnelId, window, steps, withinMs, filter, buckets);
    const [row]: Record<string, string | number | null>[] = await this.dataSource.query(text, values);
    const counts = steps.map((_, i) => ({
      sessions: Number(row[`v${i}`]),
      medianSeconds: i === 0 || row[`m${i}`] === null ? null : Number(row[`m${i}`]),
    }));
    return { counts, sessions: Number(row.sessions), exact: buckets === SAMPLE_BUCKETS };
  }
}

/**
 * The step summaries of the sessions that started in the window, match the filter and fall in the
 * first `buckets` buckets: one index range per bucket (idx_metric_session_steps_sample).
 */
function summariesWhere(
  params: SqlParams,
  funnel: string,
  window: MetricWindow,
  filter: SessionFilter,
  buckets: number,
): string {
  return `s.funnel_id = ${funnel} AND ${sampleBucketSql('s')} = ANY(${params.bind(firstBuckets(buckets), 'int[]')})
         AND s.started_ms >= ${params.bind(window.from - MARK_EPOCH_MS, 'bigint')}
         AND s.started_ms < ${params.bind(window.to + 1 - MARK_EPOCH_MS, 'bigint')}${sessionFilterSql(filter, params, 's')}`;
}

/** How many sessions of the window (matching the filter) fall in the first `buckets` buckets. */
export function sessionsInBucketsSql(
  funnelId: string,
  window: MetricWindow,
  filter: SessionFilter,
  buckets: number,
): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const where = summariesWhere(params, params.bind(funnelId), window, filter, buckets);
  return {
    text: `SELECT count(*) AS sessions FROM metric_session_steps s WHERE ${where}`,
    values: params.values,
  };
}

/** The statement of a step funnel (exported for the benchmark, which shows its plan). */
export function stepFunnelSql(
  funnelId: string,
  window: MetricWindow,
  steps: FunnelStep[],
  withinMs: number,
  filter: SessionFilter,
  buckets: number,
): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const funnel = params.bind(funnelId);
  // Each step's key as its marks' base (id × 2^42), once per statement; null for a key never seen
  // (or numbered beyond what marks hold: it has none).
  const bases = steps.map(
    (step) =>
      `(SELECT k.id * ${MARK_KEY_SQL} FROM metric_step_keys k WHERE k.funnel_id = ${funnel} AND k.key = ${params.bind(step.name)} AND k.id <= ${MAX_MARK_KEY_ID})`,
  );
  const earlier = (i: number) => Array.from({ length: i }, (_, j) => `, t${j}`).join('');
  // The innermost level reads the rows; each next one finds a step and keeps it when in time:
  // nullif(least(x, d + 1), d + 1) is x when x <= d, else null (least ignores a null x).
  let from = `(SELECT s.marks, s.started_ms AS b, s.started_ms + ${params.bind(withinMs, 'bigint')} AS d
       FROM metric_session_steps s WHERE ${summariesWhere(params, funnel, window, filter, buckets)}
       OFFSET 0) AS l`;
  steps.forEach((_, i) => {
    const before = i === 0 ? 'b' : `t${i - 1}`;
    const found = `marks[width_bucket(${bases[i]} + ${before} - 1, marks) + 1] - ${bases[i]}`;
    from = `(SELECT marks, d${earlier(i)}, nullif(least(${found}, d + 1), d + 1) AS t${i} FROM ${from} OFFSET 0) AS k${i}`;
  });
  const figures = steps.map(
    (_, i) =>
      `count(t${i}) AS v${i}` +
      (i === 0
        ? ''
        : `, percentile_cont(0.5) WITHIN GROUP (ORDER BY (t${i} - t${i - 1})::float8 / 1000) AS m${i}`),
  );
  return { text: `SELECT count(*) AS sessions, ${figures.join(', ')} FROM ${from}`, values: params.values };
}
