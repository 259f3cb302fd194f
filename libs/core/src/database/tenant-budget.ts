import { DomainException } from '../errors/domain.exception';
import type { ErrorBody } from '../errors/error-body';

/** Seconds a refused long-running request is told to wait (Retry-After) before it is sent again. */
export const LONG_WORK_RETRY_AFTER_SECONDS = 2;

/** The caller's share of long work is taken, or all of it is: 429, send again after Retry-After. */
export class LongWorkBusyError extends DomainException {
  readonly retryAfter = LONG_WORK_RETRY_AFTER_SECONDS;

  constructor(message: string) {
    super(429, message);
  }

  override toBody(): ErrorBody {
    return { ...super.toBody(), retryAfter: this.retryAfter };
  }
}

/**
 * Places for long work: `capacity` in all, at most `perTenant` for one tenant. A request that finds
 * no place is refused at once rather than queued: a queue would hold its HTTP request open, and
 * the tenant that filled it would go on filling it.
 */
export class TenantBudget {
  private readonly held = new Map<string, number>();
  private total = 0;

  constructor(
    readonly perTenant: number,
    readonly capacity: number,
  ) {}

  /** Places in use now. */
  get inUse(): number {
    return this.total;
  }

  /** Takes a place for `tenant`, or throws LongWorkBusyError; the function returned gives it back (once). */
  take(tenant: string): () => void {
    const mine = this.held.get(tenant) ?? 0;
    if (mine >= this.perTenant) {
      throw new LongWorkBusyError(
        `Too many long-running requests at once: at most ${this.perTenant} per company (exports, searches, property changes)`,
      );
    }
    if (this.total >= this.capacity) {
      throw new LongWorkBusyError(
        'The service is busy with long-running requests; send the request again later',
      );
    }
    this.held.set(tenant, mine + 1);
    this.total++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.total--;
      const left = (this.held.get(tenant) ?? 1) - 1;
      if (left) this.held.set(tenant, left);
      else this.held.delete(tenant);
    };
  }
}
