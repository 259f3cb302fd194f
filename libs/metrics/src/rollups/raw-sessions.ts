import { GROUP_SEPARATOR, SESSION_DIMENSIONS } from '../events/session-state';

/** SQL that sums the sessions of a window's edges; see rawSessionSums. */
export interface RawSessionSql {
  /**
   * The select list that builds `m` from a metric_sessions row `m`, after its piece's sign (1 or
   * −1) as `sign`: the columns the branches read, nothing else (edge reads materialise `m`).
   */
  columns: string;
  /**
   * Narrows the sessions read when no requested dimension counts the others (only sessions that
   * answered the question count for its dimensions): an extra condition on `m` for the index
   * scan, or ''.
   */
  where: string;
  /**
   * Set when the sessions are summed before they are counted: the rows above (as `m`) are grouped
   * by `by`, and `columns` is the select list of the groups, with `sign` their net number of
   * sessions. `m` is then the groups.
   */
  grouped: { columns: string; by: string } | null;
  /** The branches, one per dimension; result columns: dimension, key, sessions, conversions, completions, completion_ms. */
  sql: string;
  params: string[];
}

/**
 * The sums of sessionContributions() (events/session-state.ts) over the sessions of a relation `m`
 * per dimension and key, computed by PostgreSQL. Used for the edges of a window shorter than a
 * minute, which at high traffic hold hundreds of sessions: summing them where they are costs a
 * fraction of sending them to Node. One set-based branch per requested dimension; values are bound
 * as parameters from `$first` on.
 *
 * Unless the dimension `all` is requested (it sums each session's conversion and time to
 * completion), only the number of sessions per key counts, so the sessions are first summed per
 * distinct combination of what the branches read: the pages viewed, the answers given as stored.
 * Most sessions share one of a few, so lists are unnested and answers deduplicated once per
 * combination instead of once per session.
 */
export function rawSessionSums(dimensions: string[], first: number): RawSessionSql {
  const params: string[] = [];
  const bind = (value: string) => {
    params.push(value);
    return `$${first + params.length - 1}::text`;
  };
  const grouping = !dimensions.includes(SESSION_DIMENSIONS.all);
  // What the branches read of a session, as the columns of `m`.
  const read = new Set<string>();
  const use = (...names: string[]) => names.forEach((name) => read.add(`m.${name}`));
  // A question's latest answers as stored (a jsonb array, null when not answered), per session:
  // select list entries and their column names.
  const given: string[] = [];
  const givenColumns: string[] = [];
  // Each question's distinct answers, in the order first given (null when not answered).
  const answerColumns: string[] = [];
  const questions = new Map<string, { column: string; param: string }>();
  const answersOf = (questionId: string) => {
    let question = questions.get(questionId);
    if (!question) {
      const q = bind(questionId);
      question = { column: `q${questions.size}`, param: q };
      questions.set(questionId, question);
      const stored = `(m.answers -> ${q} -> 'answers')`;
      // Grouped, the stored answers are a column of each session and read once per group.
      let source = stored;
      if (grouping) {
        source = `m.g${questions.size - 1}`;
        given.push(`${stored} AS g${questions.size - 1}`);
        givenColumns.push(source);
      }
      answerColumns.push(`${distinctAnswers(source)} AS ${question.column}`);
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
  const answersOnly = questions.size === 1 && dimensions.every(isAnswerDimension);
  return {
    columns: [...read, ...(grouping ? given : answerColumns)].join(', '),
    where: answersOnly ? `AND m.answers ? ${question.param}` : '',
    grouped: grouping
      ? {
          columns: ['sum(m.sign) AS sign', ...read, ...answerColumns].join(', '),
          by: [...read, ...givenColumns].join(', '),
        }
      : null,
    sql: branches.join('\nUNION ALL\n'),
    params,
  };
}

/**
 * The distinct elements of a jsonb array of strings (or null), in the order first given. Most
 * sessions give one answer, taken as it is; more are deduplicated.
 */
const distinctAnswers = (given: string) =>
  `CASE WHEN ${given} IS NULL THEN NULL
     WHEN ${given} -> 1 IS NULL THEN ARRAY[${given} ->> 0]
     ELSE (SELECT array_agg(d.answer ORDER BY d.first)
           FROM (SELECT a.answer, min(a.i) AS first
                 FROM jsonb_array_elements_text(${given}) WITH ORDINALITY AS a(answer, i)
                 GROUP BY a.answer) AS d) END`;

const ANSWER_KINDS = new Set([SESSION_DIMENSIONS.answer(''), SESSION_DIMENSIONS.answerGroup('')]);
const isAnswerDimension = (dimension: string) => ANSWER_KINDS.has(splitDimension(dimension)[0]);

/** 'answer:question_1' → ['answer:', 'question_1']. */
function splitDimension(dimension: string): [string, string] {
  const colon = dimension.indexOf(':');
  return colon < 0 ? [dimension, ''] : [dimension.slice(0, colon + 1), dimension.slice(colon + 1)];
}
