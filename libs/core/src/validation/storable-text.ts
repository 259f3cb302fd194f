import { ValidationError } from '../errors/domain.exception';

// PostgreSQL text holds neither NUL nor half of a surrogate pair (it would store U+FFFD instead,
// so what is read back would differ from what was accepted).
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSTORABLE_TEXT_RULE = 'must not contain NUL characters or unpaired surrogates';

/** True when PostgreSQL can store `value` and give back exactly the same text. */
export const isStorableText = (value: string): boolean => !UNSTORABLE.test(value);

/**
 * The one rule for text a client sends and we store: storable characters and, where the field
 * has one, its length limit. Answers the problem (prefixed by `label`) or undefined.
 */
export function storableTextProblem(value: string, label: string, maxLength?: number): string | undefined {
  if (!isStorableText(value)) return `${label} ${UNSTORABLE_TEXT_RULE}`;
  if (maxLength !== undefined && value.length > maxLength) {
    return `${label} must be at most ${maxLength} characters`;
  }
  return undefined;
}

/** storableTextProblem as a 400 (admin CLI options, headers): returns the value when it passes. */
export function assertStorableText(value: string, label: string, maxLength?: number): string {
  const problem = storableTextProblem(value, label, maxLength);
  if (problem) throw new ValidationError(problem, [problem]);
  return value;
}

/**
 * Every unstorable string in a parsed request (member names included), as problems naming its
 * path (`events[0].sessionId`). Lengths are left to each field's own rule.
 */
export function findUnstorableText(value: unknown, path: string, problems: string[] = []): string[] {
  if (typeof value === 'string') {
    if (!isStorableText(value)) problems.push(`${path || 'value'} ${UNSTORABLE_TEXT_RULE}`);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => findUnstorableText(item, `${path}[${index}]`, problems));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (!isStorableText(key)) problems.push(`member name ${JSON.stringify(key)} ${UNSTORABLE_TEXT_RULE}`);
      findUnstorableText(item, at, problems);
    }
  }
  return problems;
}
