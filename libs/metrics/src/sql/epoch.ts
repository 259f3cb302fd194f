// Ingestion sends times as epoch milliseconds: cheaper to encode and parse than dates on both sides.

/** A timestamptz from epoch milliseconds. */
export const at = (column: string) => `'epoch'::timestamptz + ${column} * interval '1 millisecond'`;

/** Epoch milliseconds of a timestamptz. */
export const millis = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

/** A timestamptz parameter (ISO 8601 text) from epoch milliseconds. */
export const iso = (ms: number) => new Date(ms).toISOString();
