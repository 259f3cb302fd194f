/** The PostgreSQL types of columns that travel as arrays. */
export type ArrayColumnType = 'text' | 'int' | 'bigint';

/** A column of rows that travel as arrays: its name, its PostgreSQL type and its value in a row. */
export type ArrayColumn<T> = readonly [
  name: string,
  type: ArrayColumnType,
  value: (row: T) => string | number | null,
];

/**
 * Rows that travel as one array parameter per column, read back by `unnest`: PostgreSQL reads typed
 * arrays in about half the time json_to_recordset takes for the same rows (docs/BENCHMARKS.md),
 * and a batch's statement reads hundreds of rollup rows. Each array is bound as its literal text
 * (arrayLiteral), which the driver would otherwise build element by element.
 */
export function columnArrays<T>(columns: readonly ArrayColumn<T>[]) {
  return {
    /** How many parameters the rows take. */
    count: columns.length,
    /** The columns' names, in the order of their parameters. */
    names: columns.map(([name]) => name),
    /** The rows as the FROM item `v`, their arrays bound from parameter `first` on. */
    sql: (first: number) =>
      `unnest(${columns.map(([, type], i) => `$${first + i}::${type}[]`).join(', ')}) AS v(${columns
        .map(([name]) => name)
        .join(', ')})`,
    /** The parameters: one array literal per column, in order. */
    values: (rows: readonly T[]): string[] => columns.map(([, type, value]) => literal(type, rows, value)),
  };
}

const NEEDS_ESCAPE = /["\\]/;

/**
 * The text of a one-dimensional PostgreSQL array of `type` (`{1,NULL,3}`, `{"a","b \"c\""}`):
 * every text element double-quoted, with its quotes and backslashes escaped, so that any text
 * (commas, braces, spaces, `NULL`) reads back as itself; numbers written as they are (integers:
 * PostgreSQL refuses anything else for int and bigint); null as NULL.
 */
export function arrayLiteral(type: ArrayColumnType, values: readonly (string | number | null)[]): string {
  return literal(type, values, (v) => v);
}

/** arrayLiteral of `value` of each of `items`, without an array of the values in between. */
function literal<T>(
  type: ArrayColumnType,
  items: readonly T[],
  value: (item: T) => string | number | null,
): string {
  let text = '{';
  for (let i = 0; i < items.length; i++) {
    const v = value(items[i]);
    if (i) text += ',';
    if (v === null) text += 'NULL';
    else if (type !== 'text') text += typeof v === 'number' ? String(v) : numberText(v);
    else text += NEEDS_ESCAPE.test(v as string) ? `"${(v as string).replace(/["\\]/g, '\\$&')}"` : `"${v}"`;
  }
  return text + '}';
}

/** A number column's value given as text: only an integer's digits, so nothing else can enter the literal. */
function numberText(v: string): string {
  if (!/^-?\d+$/.test(v)) throw new Error(`not an integer: ${JSON.stringify(v)}`);
  return v;
}
