/**
 * Milliseconds to wait from a `Retry-After` header, which is either delay-seconds or an HTTP date
 * (RFC 9110 §10.2.3); undefined when absent or unreadable. A date in the past is no wait.
 */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date names its day and month ("Sun, 06 Nov 1994 08:49:37 GMT"); a bare number is not one.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
