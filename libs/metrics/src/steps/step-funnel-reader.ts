import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { MetricWindow, SessionFilter } from '../query/metric-query';
import { sessionFilterSql } from '../rollups/session-filter-sql';
import { SqlParams } from '../sql/sql-params';
import { FunnelStep, STEP_KINDS } from './funnel-steps';

/** How many sessions reached each step, and the median seconds from the step before. */
export interface StepCounts {
  sessions: number;
  medianSeconds: number | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Reads a step funnel from the sessions and their events: the sessions that started in the window
 * (and match the filter), and per session the time each step was first reached at or after the
 * step before, no later than `withinMs` after the start. One statement: the sessions, the events
 * of the steps' types from the window's start to `withinMs` after its end (the key's range scan,
 * joined to those sessions), gathered per session and step, then walked step by step.
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
  ): Promise<StepCounts[]> {
    const params = new SqlParams();
    const funnel = params.bind(funnelId);
    const within = `${params.bind(withinMs, 'bigint')} * interval '1 millisecond'`;
    const types = params.bind([...new Set(steps.map((s) => STEP_KINDS[s.kind].type))], 'text[]');
    const matches = steps.map((step) => {
      const kind = STEP_KINDS[step.kind];
      const type = `e.type = ${params.bind(kind.type)}`;
      if (!('match' in kind)) return type;
      const arg = params.bind(step.arg);
      return kind.match === 'key'
        ? `${type} AND e.key = ${arg}`
        : `${type} AND e.payload ->> 'questionId' = ${arg}`;
    });
    const reached = steps.map(
      (_, i) =>
        `CROSS JOIN LATERAL (SELECT min(x.at) AS at FROM unnest(r.a${i}) AS x(at)
           WHERE x.at >= ${i === 0 ? 'r.started_at' : `t${i - 1}.at`} AND x.at <= r.deadline) AS t${i}`,
    );
    const figures = steps.map(
      (_, i) =>
        `count(t${i}.at) AS v${i}` +
        (i === 0
          ? ''
          : `, percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM t${i}.at - t${i - 1}.at)) AS m${i}`),
    );
    const [row]: Record<string, string | number | null>[] = await this.dataSource.query(
      `WITH s AS MATERIALIZED (
         SELECT m.session_id, m.started_at, m.started_at + ${within} AS deadline
         FROM metric_sessions m
         WHERE m.funnel_id = ${funnel} AND m.started_at >= ${params.bind(iso(window.from), 'timestamptz')}
           AND m.started_at < ${params.bind(iso(window.to + 1), 'timestamptz')}${sessionFilterSql(filter, params)}
       ), r AS (
         SELECT s.session_id, s.started_at, s.deadline,
                ${matches.map((m, i) => `array_agg(e.occurred_at) FILTER (WHERE ${m}) AS a${i}`).join(',\n                ')}
         FROM metric_events e JOIN s ON s.session_id = e.session_id
         WHERE e.funnel_id = ${funnel} AND e.type = ANY(${types})
           AND e.occurred_at >= ${params.bind(iso(window.from), 'timestamptz')}
           AND e.occurred_at < ${params.bind(iso(window.to + 1), 'timestamptz')} + ${within}
           AND e.occurred_at >= s.started_at AND e.occurred_at <= s.deadline
         GROUP BY s.session_id, s.started_at, s.deadline
       )
       SELECT ${figures.join(', ')}
       FROM r
       ${reached.join('\n       ')}`,
      params.values,
    );
    return steps.map((_, i) => ({
      sessions: Number(row[`v${i}`]),
      medianSeconds: i === 0 || row[`m${i}`] === null ? null : Number(row[`m${i}`]),
    }));
  }
}
