import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { DomainException, storableTextProblem, ValidationError } from '@app/core';
import { IdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH } from './entities/idempotency-key.entity';

/** How long a key is remembered; after that it may be used again. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;
const KEY_FORMAT = new RegExp(`^[\\x21-\\x7e]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}$`);
export const IDEMPOTENCY_KEY_RULE = `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters`;

/** The key was used before with a different request (IETF idempotency-key draft: 422). */
export class IdempotencyKeyReusedError extends DomainException {
  constructor() {
    super(422, 'Idempotency-Key was already used with a different request; send a new key for a new contact');
  }
}

export interface StoredResponse {
  status: number;
  body: unknown;
}

export function assertIdempotencyKey(key: string): void {
  // The key is stored: the storable-text rule first, then the header's own stricter format and length.
  const problem = storableTextProblem(key, 'Idempotency-Key');
  if (problem) throw new ValidationError(problem, [problem]);
  if (!KEY_FORMAT.test(key)) {
    throw new ValidationError(IDEMPOTENCY_KEY_RULE);
  }
}

/** SHA-256 of the operation and its arguments in canonical JSON (object keys sorted). */
export function fingerprint(operation: string, args: unknown): string {
  return createHash('sha256')
    .update(`${operation}\n${canonicalJson(args)}`)
    .digest('hex');
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Claims the key inside the caller's transaction. Answers the stored response when the key was
 * used before with the same request, or undefined when the caller may go on (and must call
 * `rememberResponse` before committing). A concurrent request with the same key waits on the
 * unique key until the first one commits, then gets its response: one contact either way.
 */
export async function claimIdempotencyKey(
  manager: EntityManager,
  companyId: string,
  key: string,
  requestFingerprint: string,
): Promise<StoredResponse | undefined> {
  await manager.query(
    `DELETE FROM idempotency_keys WHERE company_id = $1 AND key = $2
       AND created_at < now() - make_interval(hours => $3)`,
    [companyId, key, IDEMPOTENCY_KEY_TTL_HOURS],
  );
  const claimed: unknown[] = await manager.query(
    `INSERT INTO idempotency_keys (company_id, key, fingerprint, response_status, response_body)
     VALUES ($1, $2, $3, 0, 'null') ON CONFLICT DO NOTHING RETURNING key`,
    [companyId, key, requestFingerprint],
  );
  if (claimed.length) return undefined;
  const previous = await manager.findOneByOrFail(IdempotencyKey, { companyId, key });
  if (previous.fingerprint !== requestFingerprint) throw new IdempotencyKeyReusedError();
  return { status: previous.responseStatus, body: previous.responseBody };
}

export async function rememberResponse(
  manager: EntityManager,
  companyId: string,
  key: string,
  response: StoredResponse,
): Promise<void> {
  await manager.update(
    IdempotencyKey,
    { companyId, key },
    { responseStatus: response.status, responseBody: response.body as object },
  );
}

/**
 * Forgets the company's expired keys a batch at a time (called by its writers), on one shard of a
 * sharded deployment. An idle company's expired keys wait for its next write; they answer nothing
 * meanwhile (claimIdempotencyKey drops an expired key before claiming it).
 */
export async function pruneExpiredKeys(
  manager: EntityManager,
  companyId: string,
  batch = 100,
): Promise<void> {
  await manager.query(
    `DELETE FROM idempotency_keys WHERE company_id = $1 AND key IN (
       SELECT key FROM idempotency_keys
       WHERE company_id = $1 AND created_at < now() - make_interval(hours => $2)
       LIMIT $3 FOR UPDATE SKIP LOCKED)`,
    [companyId, IDEMPOTENCY_KEY_TTL_HOURS, batch],
  );
}

/**
 * Forgets the remembered responses that show a contact being erased (a created contact's body).
 * A retry with such a key afterwards is a new request.
 */
export async function forgetResponsesAbout(
  manager: EntityManager,
  companyId: string,
  contactId: string,
): Promise<void> {
  await manager.query(
    `DELETE FROM idempotency_keys WHERE company_id = $1 AND response_body -> 'data' ->> 'id' = $2`,
    [companyId, contactId],
  );
}
