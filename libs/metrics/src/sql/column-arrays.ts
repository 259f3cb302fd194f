/** A column of rows that travel as arrays: its name, its PostgreSQL type and its value in a row. */
export type ArrayColumn<T> = readonly [name: string, type: string, value: (row: T) => unknown];

/**
 * Rows that travel as one array parameter per column, read back by `unnest`: PostgreSQL reads typed
 * arrays in about half the time json_to_recordset takes for the same rows (docs/BENCHMARKS.md),
 * and a batch's statement reads hundreds of rollup rows.
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
    /** The parameters: one array per column, in order. */
    values: (rows: readonly T[]): unknown[][] => columns.map(([, , value]) => rows.map(value)),
  };
}
