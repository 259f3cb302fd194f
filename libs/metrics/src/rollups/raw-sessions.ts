import {
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
  /** The branches, one per dimension; result columns: dimension, key, sessions, conversions, completions, completion_ms. */
  sql: string;
}

/**
 * The sums of sessionContributions() (events/session-state.ts) over the sessions of a relation `m`
 * per dimension and key, computed by PostgreSQL. Used for the edges of a window shorter than a
 * minute, which at high traffic hold hundreds of sessions: summing them where they are costs a
 * fraction of sending them to Node. One set-based branch per requested dimension, derived from its
 * declared shape (events/session-definitions.ts); values are bound in `params`.
 */
export function rawSessionSums(dimensions: string[], params: SqlParams): RawSessionSql {
  const bind = (value: string) => params.bind(value, 'text');
  // What the branches read of a session, as the columns of `m`.
  const read = new Set<string>();
  const use = (...names: string[]) => names.forEach((name) => read.add(`m.${name}`));
  // Each question's distinct answers, in the order first given (null when not answered).
  const answerColumns: string[] = [];
  const questions = new Map<string, string>();
  const answersOf = (questionId: string) => {
    let column = questions.get(questionId);
    if (!column) {
      column = `q${questions.size}`;
      questions.set(questionId, column);
      answerColumns.push(
        `${distinctAnswers(`(m.answers -> ${bind(questionId)} -> 'answers')`)} AS ${column}`,
      );
    }
    return `m.${column}`;
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
  return { columns: [...read, ...answerColumns].join(', '), sql: branches.join('\nUNION ALL\n') };
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
