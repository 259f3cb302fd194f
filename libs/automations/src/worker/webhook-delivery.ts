import { createHmac } from 'node:crypto';
import type { RunPayload } from '../entities/automation-run.entity';

export interface WebhookRequest {
  url: string;
  /** Plain secret (decrypted just before sending); null sends the request unsigned. */
  secret: string | null;
  payload: RunPayload;
  runId: string;
  automationId: string;
  attempt: number;
  timeoutMs: number;
}

/** A failed attempt; the message is safe to store and print (no secret, no URL). */
export class DeliveryError extends Error {}

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

  let response: Response;
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers,
      body,
      // A redirect would resend the signed event somewhere not configured; treat it as a failure.
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs),
    });
  } catch (error) {
    throw new DeliveryError(describeFetchError(error, request.timeoutMs));
  }
  if (response.status >= 200 && response.status < 300) {
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  const text = await response.text().catch(() => '');
  const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  throw new DeliveryError(`HTTP ${response.status}${excerpt ? `: ${excerpt}` : ''}`);
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return `timed out after ${timeoutMs} ms`;
  const code = ((error as { cause?: { code?: string } })?.cause?.code ?? '').toString();
  return code ? `connection failed (${code})` : 'connection failed';
}
