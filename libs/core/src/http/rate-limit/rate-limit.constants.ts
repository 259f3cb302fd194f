/** Requests a minute per client address on `@Public()` routes (OAuth discovery, registration, authorize). */
export const PUBLIC_RATE_LIMIT_PER_MINUTE = 60;
export const RATE_LIMIT_WINDOW_MS = 60_000;
/** Throttler names, usable with `@SkipThrottle({ [name]: true })`. */
export const API_THROTTLER = 'api';
export const PUBLIC_THROTTLER = 'public';
export const MCP_THROTTLER = 'mcp';
/** The failed-authentication count per client address (AuthFailureLimiter). */
export const AUTH_FAILURES_THROTTLER = 'auth-failures';
