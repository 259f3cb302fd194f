import { ValidationError } from '@app/core';

/** Whether a funnel's pages may send visits and leads from browsers, and from which origins. */
export interface CollectionSettings {
  enabled: boolean;
  allowedOrigins: string[];
}

export const MAX_ALLOWED_ORIGINS = 20;
const MAX_ORIGIN_LENGTH = 300;
// An origin as a browser sends it: scheme, host, optional port; no path, query or credentials.
const HTTPS_ORIGIN = /^https:\/\/[a-z0-9.-]+(?::\d{1,5})?$/;
// Development pages on this machine only (refused in production).
const LOOPBACK_ORIGIN = /^http:\/\/(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/;

/** The origin in the form browsers send it (lower case), or undefined when it is not one allowed. */
export function normalizeOrigin(value: string, production: boolean): string | undefined {
  if (value.length > MAX_ORIGIN_LENGTH) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const origin = url.origin.toLowerCase();
  // A path, query, fragment, credentials or a default port written out: not an origin as sent.
  if (value.replace(/\/$/, '').toLowerCase() !== origin) return undefined;
  if (HTTPS_ORIGIN.test(origin)) return origin;
  if (!production && LOOPBACK_ORIGIN.test(origin)) return origin;
  return undefined;
}

/**
 * The settings after a change (`PATCH …/funnels/{id}` `collection`, the admin CLI): members left
 * out keep their value; collection cannot be on without an allowed origin.
 */
export function changeCollectionSettings(
  current: CollectionSettings,
  input: unknown,
  production: boolean,
): CollectionSettings {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new ValidationError('collection must be an object {"enabled", "allowedOrigins"}');
  const body = input as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(body))
    if (key !== 'enabled' && key !== 'allowedOrigins')
      problems.push(`collection.${key} is not a recognised field`);
  const next = { ...current, allowedOrigins: [...current.allowedOrigins] };
  if (body.enabled !== undefined) {
    if (typeof body.enabled !== 'boolean') problems.push('collection.enabled must be true or false');
    else next.enabled = body.enabled;
  }
  if (body.allowedOrigins !== undefined) {
    const origins = body.allowedOrigins;
    if (!Array.isArray(origins) || origins.length > MAX_ALLOWED_ORIGINS) {
      problems.push(`collection.allowedOrigins must be a list of at most ${MAX_ALLOWED_ORIGINS} origins`);
    } else {
      const rule = production ? 'https://host[:port]' : 'https://host[:port] or http://localhost[:port]';
      const normalized = origins.map((o) =>
        typeof o === 'string' ? normalizeOrigin(o, production) : undefined,
      );
      normalized.forEach((o, i) => {
        if (!o) problems.push(`collection.allowedOrigins[${i}] must be an origin ${rule}`);
      });
      next.allowedOrigins = [...new Set(normalized.filter((o): o is string => !!o))];
    }
  }
  if (!problems.length && next.enabled && !next.allowedOrigins.length)
    problems.push('collection.enabled needs at least one allowed origin');
  if (problems.length) throw new ValidationError(problems[0], problems);
  return next;
}

/** Whether a request from `origin` may send to a funnel with these settings. */
export function acceptsOrigin(settings: CollectionSettings, origin: string | undefined): boolean {
  return settings.enabled && !!origin && settings.allowedOrigins.includes(origin.toLowerCase());
}
