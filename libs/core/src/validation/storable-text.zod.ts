import { z } from 'zod';
import { isStorableText, UNSTORABLE_TEXT_RULE } from './storable-text';

/**
 * The storable-text rule for MCP tool arguments: a zod string (optionally with the field's length
 * limit) refused when PostgreSQL could not store it as sent.
 */
export function storableString(maxLength?: number) {
  const base = maxLength === undefined ? z.string() : z.string().max(maxLength);
  return base.refine(isStorableText, { message: `text ${UNSTORABLE_TEXT_RULE}` });
}
