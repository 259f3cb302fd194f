/** Session filters as metric_sessions columns, e.g. `{ device: ['mobile'] }`. */
export type RawFilter = Partial<
  Record<'device' | 'utm_source' | 'ab_variant' | 'utm_medium' | 'utm_campaign', string[]>
>;

const STEP_MATCH: Record<string, (arg: string | null) => string> = {
  page: (arg) => `e.type = 'page_view' AND e.key = ${literal(arg)}`,
  click: (arg) => `e.type = 'button_click' AND e.key = ${literal(arg)}`,
  answer: (arg) => `e.type = 'answer' AND e.payload ->> 'questionId' = ${literal(arg)}`,
  conversion: () => `e.type = 'conversion'`,
  completion: () => `e.type = 'completion'`,
};
const TYPES: Record<string, string> = {
  page: 'page_view',
  click: 'button_click',
  answer: 'answer',
  conversion: 'conversion',
  completion: 'completion',
};
const literal = (v: string | null) => `'${String(v).replace(/'/g, "''")}'`;

/**
 * A step funnel computed directly from the raw events and sessions, by the definition in
 * docs/METRICS.md: the sessions started in [from, to] (matching the filter), each step the first
 * matching event at or after the previous one (the start for the first), all at most `withinMs`
 * after the start; then the answer as the route gives it (ratios of 4 decimals, medians of 2).
 * With `buckets`, only the sessions whose start second (since 2000-01-01 UTC) hashes (hashint8,
 * 1,024 buckets) into the first ones: a sample as the route reads it, whose counts are not scaled here.
 */
export function rawStepFunnelSql(
  funnelId: string,
  from: string,
  to: string,
  steps: string[],
  withinMs: number,
  filter: RawFilter = {},
  buckets = 1024,
): { text: string; values: unknown[] } {
  const matches = steps.map((step) => {
    const colon = step.indexOf(':');
    return colon < 0 ? STEP_MATCH[step](null) : STEP_MATCH[step.slice(0, colon)](step.slice(colon + 1));
  });
  const filters = Object.entries(filter)
    .map(([column, values]) => ` AND m.${column} = ANY(ARRAY[${values.map(literal).join(', ')}]::text[])`)
    .join('')
    .concat(
      buckets < 1024
        ? ` AND (hashint8(floor(extract(epoch FROM m.started_at - timestamptz '2000-01-01Z'))::bigint) & 1023) < ${Number(buckets)}`
        : '',
    );
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
  const types = [...new Set(steps.map((s) => TYPES[s.split(':')[0]]))];
  // The statement step funnels ran before the step summaries, with the same bounds on the events.
  return {
    text: `WITH s AS MATERIALIZED (
       SELECT m.session_id, m.started_at, m.started_at + $2 * interval '1 millisecond' AS deadline
       FROM metric_sessions m
       WHERE m.funnel_id = $1 AND m.started_at >= $3::timestamptz AND m.started_at <= $4::timestamptz${filters}
     ), r AS (
       SELECT s.session_id, s.started_at, s.deadline,
              ${matches.map((m, i) => `array_agg(e.occurred_at) FILTER (WHERE ${m}) AS a${i}`).join(', ')}
       FROM metric_events e JOIN s ON s.session_id = e.session_id
       WHERE e.funnel_id = $1 AND e.type = ANY($5::text[])
         AND e.occurred_at >= $3::timestamptz AND e.occurred_at <= $4::timestamptz + $2 * interval '1 millisecond'
         AND e.occurred_at >= s.started_at AND e.occurred_at <= s.deadline
       GROUP BY s.session_id, s.started_at, s.deadline
     )
     SELECT ${figures.join(', ')} FROM r ${reached.join(' ')}`,
    values: [funnelId, withinMs, from, to, types],
  };
}

export async function rawStepFunnel(
  db: { query(text: string, values?: unknown[]): Promise<Record<string, string | number | null>[]> },
  funnelId: string,
  from: string,
  to: string,
  steps: string[],
  withinMs: number,
  filter: RawFilter = {},
  buckets = 1024,
): Promise<{ step: string; value: number; relativeValue: number; medianSecondsFromPrevious?: number }[]> {
  const { text, values } = rawStepFunnelSql(funnelId, from, to, steps, withinMs, filter, buckets);
  const [row]: Record<string, string | number | null>[] = await db.query(text, values);
  const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;
  const counts = steps.map((_, i) => Number(row[`v${i}`]));
  return steps.map((step, i) => ({
    step,
    value: counts[i],
    relativeValue: i === 0 ? 1 : counts[i - 1] ? round(counts[i] / counts[i - 1], 4) : 0,
    ...(i === 0
      ? {}
      : { medianSecondsFromPrevious: row[`m${i}`] === null ? 0 : round(Number(row[`m${i}`]), 2) }),
  }));
}
