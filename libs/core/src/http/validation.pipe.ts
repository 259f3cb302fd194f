import { ArgumentMetadata, ValidationError as ClassValidatorError, ValidationPipe } from '@nestjs/common';
import { ValidationError } from '../errors/domain.exception';

// class-validator's wording for a member the DTO does not declare (nested ones get a path).
const UNKNOWN_MEMBER = /^(?:(.+)\.)?property (.+) should not exist$/;

/**
 * DTO validation for every route: values are transformed to the DTO types, members the DTO does
 * not declare are refused, and a failure becomes the standard 400 body whose `error` is the first
 * problem and whose `details` lists them all.
 */
export class AppValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      validationError: { target: false, value: false },
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // A JSON array or scalar where a DTO object is expected is refused as a whole, not member by member.
    const isDtoBody = metadata.type === 'body' && this.toValidate(metadata);
    if (
      isDtoBody &&
      value !== undefined &&
      (typeof value !== 'object' || value === null || Array.isArray(value))
    ) {
      throw new ValidationError('the request body must be a JSON object', [
        'the request body must be a JSON object',
      ]);
    }
    return super.transform(value, metadata);
  }

  override createExceptionFactory() {
    return (errors: ClassValidatorError[] = []) => {
      const details = [...new Set(this.flattenValidationErrors(errors).map(rephrase))];
      return new ValidationError(details[0] ?? 'Validation failed', details);
    };
  }
}

function rephrase(message: string): string {
  const unknown = UNKNOWN_MEMBER.exec(message);
  if (unknown) return `${unknown[1] ? `${unknown[1]}.` : ''}${unknown[2]} is not a recognised field`;
  return message;
}
