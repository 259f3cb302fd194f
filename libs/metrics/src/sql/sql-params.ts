/**
 * The parameters of one statement, bound by value: `bind` appends a value and returns its
 * placeholder, so SQL is written with the placeholder in hand instead of counting positions.
 * A value used more than once is bound once and its placeholder reused.
 */
export class SqlParams {
  readonly values: unknown[] = [];

  /** `$n`, or `$n::type` when the planner must know the type (arrays, timestamps of text). */
  bind(value: unknown, type?: string): string {
    this.values.push(value);
    const placeholder = `$${this.values.length}`;
    return type ? `${placeholder}::${type}` : placeholder;
  }
}
