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
