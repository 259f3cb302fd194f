import { GROUP_SEPARATOR, SESSION_DIMENSIONS } from '../events/session-state';

/**
 * The sums of sessionContributions() (events/session-state.ts) over the sessions of a relation `m`
 * (rows of metric_sessions with a `sign` column, 1 or −1), per dimension and key, computed by
 * PostgreSQL. Used for the sub-minute
 * edges of a window, which at high traffic hold thousands of sessions: summing them where they are
 * costs a fraction of sending them to Node. One set-based branch per requested dimension; values
 * are bound as parameters from `$first` on. Columns: dimension, key, sessions, conversions,
 * completions, completion_ms.
 */
export function rawSessionSums(dimensions: string[], first: number): { sql: string; params: string[] } {
  const params: string[] = [];
  const bind = (value: string) => {
    params.push(value);
    return `$${first + params.length - 1}::text`;
  };
  const counted = (dimension: string, key: string, from: string, sign = 'm.sign') =>
    `SELECT ${bind(dimension)} AS dimension, ${key} AS key, sum(${sign}) AS sessions, 0 AS conversions,
            0 AS completions, 0 AS completion_ms ${from} GROUP BY 2`;
  const branches = dimensions.map((dimension) => {
    if (dimension === SESSION_DIMENSIONS.all)
      return `SELECT ${bind(dimension)} AS dimension, '' AS key, sum(m.sign) AS sessions,
                     coalesce(sum(m.sign) FILTER (WHERE m.converted_at IS NOT NULL), 0) AS conversions,
                     coalesce(sum(m.sign) FILTER (WHERE m.completed_at IS NOT NULL), 0) AS completions,
                     coalesce(sum(m.sign * greatest(0, extract(epoch FROM m.completed_at - m.started_at) * 1000)), 0)
                       AS completion_ms
              FROM m HAVING count(*) > 0`;
    if (dimension === SESSION_DIMENSIONS.device)
      return counted(dimension, 'm.device', 'FROM m WHERE m.device IS NOT NULL');
    if (dimension === SESSION_DIMENSIONS.source)
      return counted(dimension, 'm.utm_source', 'FROM m WHERE m.utm_source IS NOT NULL');
    if (dimension === SESSION_DIMENSIONS.page)
      return counted(dimension, 'p.slug', 'FROM m CROSS JOIN unnest(m.pages) AS p(slug)');
    const [kind, value] = splitDimension(dimension);
    if (kind === SESSION_DIMENSIONS.pageOf(''))
      return counted(
        dimension,
        'p.slug',
        `FROM m CROSS JOIN unnest(m.pages) AS p(slug) WHERE m.ab_variant = ${bind(value)}`,
      );
    // The session's latest answers to the question; an answer given twice counts once.
    const answers = (q: string) =>
      `FROM m CROSS JOIN jsonb_array_elements_text(m.answers -> ${q} -> 'answers') WITH ORDINALITY AS a(answer, i)`;
    if (kind === SESSION_DIMENSIONS.answer(''))
      return counted(
        dimension,
        'd.answer',
        `FROM (SELECT DISTINCT m.session_id, m.sign, a.answer ${answers(bind(value))}) AS d`,
        'd.sign',
      );
    if (kind === SESSION_DIMENSIONS.answerGroup(''))
      // Distinct answers in the order first given, joined: the key of the session's answer group.
      return counted(
        dimension,
        'g.key',
        `FROM (SELECT d.sign, string_agg(d.answer, '${GROUP_SEPARATOR}' ORDER BY d.first) AS key
               FROM (SELECT m.session_id, m.sign, a.answer, min(a.i) AS first ${answers(bind(value))}
                     GROUP BY m.session_id, m.sign, a.answer) AS d
               GROUP BY d.session_id, d.sign) AS g`,
        'g.sign',
      );
    throw new Error(`unknown session dimension ${dimension}`);
  });
  return { sql: branches.join('\nUNION ALL\n'), params };
}

/** 'answer:question_1' → ['answer:', 'question_1']. */
function splitDimension(dimension: string): [string, string] {
  const colon = dimension.indexOf(':');
  return colon < 0 ? [dimension, ''] : [dimension.slice(0, colon + 1), dimension.slice(colon + 1)];
}
