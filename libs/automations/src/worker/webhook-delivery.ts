import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { RunPayload } from '../entities/automation-run.entity';
import type { ResolvedTarget } from '../subscriptions/webhook-target';

export interface WebhookRequest {
  url: string;
  /** Plain secret (decrypted just before sending); null sends the request unsigned. */
  secret: string | null;
  payload: RunPayload;
  runId: string;
  automationId: string;
  /** Set for REST hook deliveries (sent as X-Webhook-Subscription-Id). */
  subscriptionId?: string | null;
  attempt: number;
  timeoutMs: number;
  /** REST hooks: connect to this address, resolved and checked for this delivery, and nowhere else. */
  pinned?: ResolvedTarget;
}

/** A failed attempt; the message is safe to store and print (no secret, no URL). */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** The receiver's HTTP status, when it answered. */
    readonly status?: number,
    /** Retrying cannot help (e.g. an SMTP 5xx answer): the run fails now. */
    readonly permanent = false,
  ) {
    super(message);
  }
}

/** `sha256=<hex HMAC-SHA256 of the exact body bytes>`, the X-Signature header value. */
export function signatureOf(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** POSTs the event; resolves on a 2xx answer, throws DeliveryError otherwise. */
export async function postWebhook(request: WebhookRequest): Promise<void> {
  const { event, funnelId, contact, change, occurredAt } = request.payload;
  // Rebuilt in the documented member order (jsonb does not keep the order of keys).
  const body = JSON.stringify({ event, funnelId, contact, change, occurredAt });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'funnel-crm-automations/1',
    'x-automation-id': request.automationId,
    // Stable across retries: receivers deduplicate on it.
    'x-automation-run-id': request.runId,
    'x-automation-attempt': String(request.attempt),
  };
  if (request.secret) headers['x-signature'] = signatureOf(body, request.secret);

  if (request.pinned) {
    headers['x-webhook-subscription-id'] = request.subscriptionId ?? '';
    const { status, text } = await postPinned(request.pinned, headers, body, request.timeoutMs);
    return settle(status, text);
  }
  return postSigned(request.url, headers, body, request.timeoutMs);
}

/** POSTs `body` to an operator's configured URL; resolves on a 2xx answer, throws DeliveryError otherwise. */
export async function postSigned(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      // A redirect would resend the signed request somewhere not configured; treat it as a failure.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new DeliveryError(describeFetchError(error, timeoutMs));
  }
  if (response.status >= 200 && response.status < 300) {
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  settle(response.status, await response.text().catch(() => ''));
}

function settle(status: number, text: string): void {
  if (status >= 200 && status < 300) return;
  const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  throw new DeliveryError(`HTTP ${status}${excerpt ? `: ${excerpt}` : ''}`, status);
}

/**
 * POSTs over node:http(s) to the pinned address: the host name still goes in Host and in TLS
 * (SNI and certificate check), but no second DNS answer can redirect the connection. Redirects
 * are not followed (node:http never does).
 */
function postPinned(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  const { url, address, family } = target;
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as Function)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < 1000) text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' })),
    );
    req.on('error', (error) =>
      reject(new DeliveryError(describeFetchError({ name: error.name, cause: error }, timeoutMs))),
    );
    req.end(body);
  });
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return `timed out after ${timeoutMs} ms`;
  const code = ((error as { cause?: { code?: string } })?.cause?.code ?? '').toString();
  return code ? `connection failed (${code})` : 'connection failed';
}
