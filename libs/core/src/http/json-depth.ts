/**
 * Deepest nesting a JSON body may have. The deepest body the API documents (an event batch with
 * its `utm` object) is four levels; 32 leaves room without letting a recursive reader run out
 * of stack.
 */
export const MAX_JSON_DEPTH = 32;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The error body-parser hands on when a body is nested too deeply (mapped to 400 by the filter). */
export class JsonTooDeepError extends Error {
  readonly status = 400;
  readonly type = 'entity.too.deep';
  constructor(readonly limit: number) {
    super(`JSON body nested deeper than ${limit} levels`);
  }
}

/**
 * True when the raw JSON text nests objects and arrays deeper than `limit`. Runs over the bytes
 * before they are parsed, so no parser or transformer ever recurses into a hostile body.
 */
export function exceedsJsonDepth(raw: Buffer, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}

/** body-parser `verify` hook refusing bodies nested deeper than MAX_JSON_DEPTH. */
/** Routes whose signature covers the exact body bytes keep them as `req.rawBody` (the SMS gateway's reports). */
const KEEPS_RAW_BODY = /^\/sms\/status(?:[?#]|$)/;

export function verifyJsonDepth(req: { url?: string; rawBody?: Buffer }, _res: unknown, raw: Buffer): void {
  if (exceedsJsonDepth(raw)) throw new JsonTooDeepError(MAX_JSON_DEPTH);
  if (KEEPS_RAW_BODY.test(req.url ?? '')) req.rawBody = raw;
}
