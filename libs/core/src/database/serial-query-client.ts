import { Client } from 'pg';

/**
 * A pg client that runs the promise-returning queries it is given one after another. TypeORM's
 * schema reader (the schema-drift check, `migration:generate`) sends its per-column queries in
 * parallel on one connection, which node-postgres deprecates; queued here, they reach the client
 * one at a time. Callback and submittable queries (pg-pool's own) pass straight through.
 */
export class SerialQueryClient extends Client {
  private tail: Promise<unknown> = Promise.resolve();

  override query(...args: unknown[]): never {
    const run = (super.query as (...rest: unknown[]) => Promise<unknown>).bind(this);
    const [first] = args;
    const submittable = typeof (first as { submit?: unknown } | null)?.submit === 'function';
    if (submittable || typeof args.at(-1) === 'function') return run(...args) as never;
    const result = this.tail.then(() => run(...args));
    this.tail = result.catch(() => undefined);
    return result as never;
  }
}
