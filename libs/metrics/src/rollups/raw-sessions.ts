import {
  countsOutcomes,
  FILTER_COLUMNS,
  GROUP_SEPARATOR,
  sessionDimension,
  START_ATTRIBUTES,
} from '../events/session-definitions';
import type { SqlParams } from '../sql/sql-params';

/** SQL that sums the sessions of a window's edges; see rawSessionSums. */
interface RawSessionSql {
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
}

/**
 * The sums of sessionContributions() (events/session-state.ts) over the sessions of a relation `m`
 * per dimension and key, computed by PostgreSQL. Used for the edges of a window shorter than a
 * minute, which at high traffic hold hundreds of sessions: summing them where they are costs a
 * fraction of sending them to Node. One set-based branch per requested dimension, derived from its
 * declared shape (events/session-definitions.ts); values are bound in `params`.
 *
 * Unless the `segment` dimension is requested (it sums each session's conversion and time to
 * completion), only the number of sessions per key counts, so the sessions are first summed per
 * distinct combination of what the branches read: the pages viewed, the answers given as stored.
 * Most sessions share one of a few, so lists are unnested and answers deduplicated once per
 * combination instead of once per session.
 */
export function rawSessionSums(dimensions: string[], params: SqlParams): RawSessionSql {
  const bind = (value: string) => params.bind(value, 'text');
  const grouping = !dimensions.some((d) => countsOutcomes(sessionDimension(d).definition));
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
  const outcomes = (dimension: string, key: string, tail: string) => {
    use('converted_at', 'completed_at', 'started_at');
    return `SELECT ${bind(dimension)} AS dimension, ${key} AS key, sum(m.sign) AS sessions,
                   coalesce(sum(m.sign) FILTER (WHERE m.converted_at IS NOT NULL), 0) AS conversions,
                   coalesce(sum(m.sign) FILTER (WHERE m.completed_at IS NOT NULL), 0) AS completions,
                   coalesce(sum(m.sign * greatest(0, extract(epoch FROM m.completed_at - m.started_at) * 1000)), 0)
                     AS completion_ms
            FROM m ${tail}`;
  };
  const tools: BranchTools = { bind, use, answersOf, counted, outcomes };
  const branches = dimensions.map((dimension) => dimensionBranch(dimension, tools));
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
  };
}

/** What rawSessionSums gives a dimension's branch to build it with. */
interface BranchTools {
  /** A value bound as text. */
  bind: (value: string) => string;
  /** Marks columns of `m` as read. */
  use: (...names: string[]) => void;
  /** The column of a question's distinct answers. */
  answersOf: (questionId: string) => string;
  /** A branch counting sessions per key only. */
  counted: (dimension: string, key: string, from: string) => string;
  /** A branch counting sessions with their outcomes per key. */
  outcomes: (dimension: string, key: string, tail: string) => string;
}

/** The branch of one dimension, from its declared shape (events/session-definitions.ts). */
function dimensionBranch(
  dimension: string,
  { bind, use, answersOf, counted, outcomes }: BranchTools,
): string {
  const { definition, arg } = sessionDimension(dimension);
  switch (definition.shape) {
    case 'segment': {
      // The text segmentKey() gives: `<length>:<value>` per filter attribute, `-` when unset
      // (length() counts code points, as segmentKey does).
      use(...FILTER_COLUMNS);
      const members = FILTER_COLUMNS.map((c) => `coalesce(length(m.${c}) || ':' || m.${c}, '-')`).join(
        ' || ',
      );
      // Grouped by the columns, so the key is built once per combination, not once per session.
      return outcomes(dimension, members, `GROUP BY ${FILTER_COLUMNS.map((c) => `m.${c}`).join(', ')}`);
    }
    case 'pages': {
      use('pages');
      const from = 'FROM m CROSS JOIN unnest(m.pages) AS p(slug)';
      if (!definition.by) return counted(dimension, 'p.slug', from);
      const column = START_ATTRIBUTES[definition.by].column;
      use(column);
      return counted(dimension, 'p.slug', `${from} WHERE m.${column} = ${bind(arg)}`);
    }
    case 'answers': {
      const answers = answersOf(arg);
      // Grouped: the distinct answers joined, the key of the session's answer group.
      return definition.grouped
        ? counted(
            dimension,
            `array_to_string(${answers}, '${GROUP_SEPARATOR}')`,
            `FROM m WHERE ${answers} IS NOT NULL`,
          )
        : counted(
            dimension,
            'a.answer',
            `FROM m CROSS JOIN unnest(${answers}) AS a(answer) WHERE ${answers} IS NOT NULL`,
          );
    }
  }
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

const isAnswerDimension = (dimension: string) => sessionDimension(dimension).definition.shape === 'answers';
