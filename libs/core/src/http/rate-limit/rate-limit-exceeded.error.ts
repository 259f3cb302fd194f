import { DomainException } from '../../errors/domain.exception';
import type { ErrorBody } from '../../errors/error-body';

/** Too many requests in the window: the body says, as `Retry-After` does, when to send again. */
export class RateLimitExceededError extends DomainException {
  constructor(readonly retryAfter: number) {
    super(429, 'Rate limit exceeded');
  }

  override toBody(): ErrorBody {
    return { ...super.toBody(), retryAfter: this.retryAfter };
  }
}
