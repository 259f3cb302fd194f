import type { EnvironmentVariables } from '@app/core';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

type OriginEnv = Pick<EnvironmentVariables, 'MCP_ALLOWED_ORIGINS' | 'BASE_URL' | 'NODE_ENV'>;

/**
 * Which browser origins may call /mcp (the transport spec: servers MUST validate `Origin`, against
 * DNS rebinding). `MCP_ALLOWED_ORIGINS` when set; else the origin of `BASE_URL`, plus any loopback
 * origin outside production (local clients such as MCP Inspector). A base URL derived from the
 * request does not count: its Host header is exactly what a rebinding page controls.
 */
export function originPolicy(env: OriginEnv): (origin: string) => boolean {
  const listed = env.MCP_ALLOWED_ORIGINS
    ? env.MCP_ALLOWED_ORIGINS.split(',').map((value) => value.trim())
    : env.BASE_URL
      ? [env.BASE_URL]
      : [];
  const allowed = new Set(listed.map(originOf).filter((value): value is string => Boolean(value)));
  const loopback = !env.MCP_ALLOWED_ORIGINS && env.NODE_ENV !== 'production';
  return (origin) => {
    const normalized = originOf(origin);
    if (!normalized) return false;
    if (allowed.has(normalized)) return true;
    const url = new URL(normalized);
    return loopback && LOOPBACK_HOSTS.has(url.hostname);
  };
}

/** `scheme://host[:port]` of an http(s) URL or origin, lower-cased by URL; undefined otherwise. */
function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    return ['http:', 'https:'].includes(url.protocol) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
