import { ArgumentMetadata, ValidationError as ClassValidatorError, ValidationPipe } from '@nestjs/common';
import { ValidationError } from '../errors/domain.exception';
import { findUnstorableText } from '../validation/storable-text';

// At most this many problems are listed; a broken client tends to repeat one mistake many times.
const MAX_DETAILS = 20;

// class-validator's wording for a member the DTO does not declare (nested ones get a path).
const UNKNOWN_MEMBER = /^(?:(.+)\.)?property (.+) should not exist$/;

/**
 * DTO validation for every route: values are transformed to the DTO types, members the DTO does
 * not declare are refused, and a failure becomes the standard 400 body whose `error` is the first
 * problem and whose `details` lists them all. Every text of a body, query or path (DTO or not)
 * must be storable, and a DTO member is either left out or has its declared type: `null` is refused.
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
    if (metadata.type === 'body' || metadata.type === 'query' || metadata.type === 'param') {
      refuse(findUnstorableText(value, metadata.type === 'param' ? (metadata.data ?? '') : ''));
    }
    const transformed = await super.transform(value, metadata);
    // After the DTO rules, so a required member sent as null keeps its own message ("value is required").
    if (isDtoBody) refuse(findNulls(value, ''));
    return transformed;
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

function refuse(problems: string[]): void {
  if (problems.length) throw new ValidationError(problems[0], problems.slice(0, MAX_DETAILS));
}

/** Members sent as `null` (no request member of the API is nullable; leave a member out instead). */
function findNulls(value: unknown, path: string, problems: string[] = []): string[] {
  if (value === null) problems.push(`${path || 'the request body'} must not be null`);
  else if (Array.isArray(value))
    value.forEach((item, index) => findNulls(item, `${path}[${index}]`, problems));
  else if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) findNulls(item, path ? `${path}.${key}` : key, problems);
  }
  return problems;
}
