import { GROUP_SEPARATOR, SESSION_DIMENSIONS } from '../events/session-state';

/**
 * The sums of sessionContributions() (events/session-state.ts) over the sessions of a relation `m`
 * per dimension and key, computed by PostgreSQL. Used for the sub-minute edges of a window, which
 * at high traffic hold thousands of sessions: summing them where they are costs a fraction of
 * sending them to Node. One set-based branch per requested dimension; values are bound as
 * parameters from `$first` on. `columns` is the select list that builds `m` from a metric_sessions
 * row `m` and its piece's `s.sign` (1 or −1): the sign, the columns the branches read and nothing
 * else (edge reads materialise `m`), and a question's distinct answers, computed once per session
 * for both of its dimensions. `where` narrows the sessions read when no requested dimension counts
 * the others (only sessions that answered the question count for its dimensions): an extra
 * condition on `m` for the index scan, or ''. Result columns: dimension, key, sessions,
 * conversions, completions, completion_ms.
 */
export function rawSessionSums(
  dimensions: string[],
  first: number,
): { columns: string; where: string; sql: string; params: string[] } {
  const params: string[] = [];
  const bind = (value: string) => {
    params.push(value);
    return `$${first + params.length - 1}::text`;
  };
  const read = new Set<string>();
  const use = (...names: string[]) => names.forEach((name) => read.add(`m.${name}`));
  const questions = new Map<string, { column: string; param: string }>();
  const columns: string[] = [];
  // The session's latest answers to a question, each once, in the order first given (null when
  // the session did not answer it). Most give one answer, taken as it is; more are deduplicated.
  const answersOf = (questionId: string) => {
    let question = questions.get(questionId);
    if (!question) {
      const q = bind(questionId);
      question = { column: `q${questions.size}`, param: q };
      questions.set(questionId, question);
      const given = `(m.answers -> ${q} -> 'answers')`;
      // One path lookup each: is there an answer, is there a second one.
      columns.push(`CASE WHEN NOT m.answers ? ${q} THEN NULL
        WHEN m.answers #> ARRAY[${q}, 'answers', '1'] IS NULL THEN ARRAY[m.answers #>> ARRAY[${q}, 'answers', '0']]
        ELSE (SELECT array_agg(d.answer ORDER BY d.first)
              FROM (SELECT a.answer, min(a.i) AS first
                    FROM jsonb_array_elements_text(${given}) WITH ORDINALITY AS a(answer, i)
                    GROUP BY a.answer) AS d) END AS ${question.column}`);
    }
    return `m.${question.column}`;
  };
  const counted = (dimension: string, key: string, from: string) =>
    `SELECT ${bind(dimension)} AS dimension, ${key} AS key, sum(m.sign) AS sessions, 0 AS conversions,
            0 AS completions, 0 AS completion_ms ${from} GROUP BY 2`;
  const branches = dimensions.map((dimension) => {
    if (dimension === SESSION_DIMENSIONS.all) {
      use('converted_at', 'completed_at', 'started_at');
      return `SELECT ${bind(dimension)} AS dimension, '' AS key, sum(m.sign) AS sessions,
                     coalesce(sum(m.sign) FILTER (WHERE m.converted_at IS NOT NULL), 0) AS conversions,
                     coalesce(sum(m.sign) FILTER (WHERE m.completed_at IS NOT NULL), 0) AS completions,
                     coalesce(sum(m.sign * greatest(0, extract(epoch FROM m.completed_at - m.started_at) * 1000)), 0)
                       AS completion_ms
              FROM m HAVING count(*) > 0`;
    }
    if (dimension === SESSION_DIMENSIONS.device) {
      use('device');
      return counted(dimension, 'm.device', 'FROM m WHERE m.device IS NOT NULL');
    }
    if (dimension === SESSION_DIMENSIONS.source) {
      use('utm_source');
      return counted(dimension, 'm.utm_source', 'FROM m WHERE m.utm_source IS NOT NULL');
    }
    if (dimension === SESSION_DIMENSIONS.page) {
      use('pages');
      return counted(dimension, 'p.slug', 'FROM m CROSS JOIN unnest(m.pages) AS p(slug)');
    }
    const [kind, value] = splitDimension(dimension);
    if (kind === SESSION_DIMENSIONS.pageOf('')) {
      use('pages', 'ab_variant');
      return counted(
        dimension,
        'p.slug',
        `FROM m CROSS JOIN unnest(m.pages) AS p(slug) WHERE m.ab_variant = ${bind(value)}`,
      );
    }
    if (kind === SESSION_DIMENSIONS.answer('')) {
      const answers = answersOf(value);
      return counted(
        dimension,
        'a.answer',
        `FROM m CROSS JOIN unnest(${answers}) AS a(answer) WHERE ${answers} IS NOT NULL`,
      );
    }
    if (kind === SESSION_DIMENSIONS.answerGroup('')) {
      // The distinct answers joined: the key of the session's answer group.
      const answers = answersOf(value);
      return counted(
        dimension,
        `array_to_string(${answers}, '${GROUP_SEPARATOR}')`,
        `FROM m WHERE ${answers} IS NOT NULL`,
      );
    }
    throw new Error(`unknown session dimension ${dimension}`);
  });
  const [question] = questions.values();
  const answersOnly = questions.size === 1 && dimensions.every((d) => ANSWER_KINDS.has(splitDimension(d)[0]));
  return {
    columns: ['s.sign', ...read, ...columns].join(', '),
    where: answersOnly ? `AND m.answers ? ${question.param}` : '',
    sql: branches.join('\nUNION ALL\n'),
    params,
  };
}

const ANSWER_KINDS = new Set([SESSION_DIMENSIONS.answer(''), SESSION_DIMENSIONS.answerGroup('')]);

/** 'answer:question_1' → ['answer:', 'question_1']. */
function splitDimension(dimension: string): [string, string] {
  const colon = dimension.indexOf(':');
  return colon < 0 ? [dimension, ''] : [dimension.slice(0, colon + 1), dimension.slice(colon + 1)];
}
