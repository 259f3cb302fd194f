import type { ErrorBody } from './error-body';

/** Errors the domain raises; the global filter maps each to its HTTP status and wire shape. */
export class DomainException extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: string[],
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The response body (product decisions §3); an error with more to say adds members here. */
  toBody(): ErrorBody {
    const body: ErrorBody = { error: this.message, status: this.status };
    return this.details?.length ? { ...body, details: this.details } : body;
  }
}

export class NotFoundError extends DomainException {
  constructor(message = 'Not found') {
    super(404, message);
  }
}

export class ValidationError extends DomainException {
  constructor(message: string, details?: string[]) {
    super(400, message, details);
  }
}

export class ConflictError extends DomainException {
  constructor(message: string) {
    super(409, message);
  }
}

/**
 * The process is too busy for this request now (the database's outages are recognised apart): a
 * 503 with Retry-After, logged as a warning with `reason`.
 */
export class ServiceOverloadedError extends DomainException {
  constructor(readonly reason: string) {
    super(503, 'Service unavailable');
  }
}
