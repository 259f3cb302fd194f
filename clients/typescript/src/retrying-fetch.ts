import { retryAfterMs } from './retry-after';

export interface RetryOptions {
  /** Attempts in all, the first included (default 5). */
  maxAttempts?: number;
  /** First backoff after a 503 or a network error without Retry-After; doubles each time (default 500 ms). */
  baseDelayMs?: number;
  /**
   * The longest single wait (default 60 s, one rate-limit window). A Retry-After beyond it is not
   * waited for: the response is returned as it is.
   */
  maxDelayMs?: number;
  /** Called before each wait, e.g. to log it. */
  onRetry?: (retry: RetryEvent) => void;
}

export interface RetryEvent {
  method: string;
  url: string;
  /** The attempt that failed (1 = the first request). */
  attempt: number;
  /** The status answered, or undefined when the request failed on the network. */
  status?: number;
  delayMs: number;
}

// Methods the service handles idempotently: sending one twice leaves the state of sending it once.
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'DELETE']);

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * A `fetch` that waits and sends again when the service says so:
 * - 429: the rate limit refused the request before anything ran, so any request, POST included,
 *   is sent again after `Retry-After`.
 * - 503 (database outage, overload) and network errors: the request may have been carried out, so
 *   only a request that is safe to repeat is sent again: an idempotent method, or a POST carrying an
 *   `Idempotency-Key` (the service answers a repeat with the first response). Waits `Retry-After`
 *   when given, else an exponential backoff with jitter.
 */
export function retryingFetch(options: RetryOptions = {}, base: typeof fetch = globalThis.fetch) {
  const maxAttempts = options.maxAttempts ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 60_000;

  return async (input: Request, init?: RequestInit): Promise<Response> => {
    const repeatable = IDEMPOTENT.has(input.method) || input.headers.has('idempotency-key');
    const backoff = (attempt: number) =>
      Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));

    for (let attempt = 1; ; attempt++) {
      // Each attempt sends a copy: a body can be read once.
      const request = attempt < maxAttempts ? input.clone() : input;
      let response: Response;
      try {
        response = await base(request, init);
      } catch (error) {
        if (!repeatable || attempt >= maxAttempts || input.signal?.aborted) throw error;
        const delayMs = backoff(attempt);
        options.onRetry?.({ method: input.method, url: input.url, attempt, delayMs });
        await sleep(delayMs, input.signal);
        continue;
      }

      const retryable = response.status === 429 || (response.status === 503 && repeatable);
      if (!retryable || attempt >= maxAttempts) return response;
      const told = retryAfterMs(response.headers.get('retry-after'));
      if (told !== undefined && told > maxDelayMs) return response;
      const delayMs = told ?? backoff(attempt);
      options.onRetry?.({ method: input.method, url: input.url, attempt, status: response.status, delayMs });
      // Free the connection of the answer that is dropped.
      await response.body?.cancel();
      await sleep(delayMs, input.signal);
    }
  };
}
