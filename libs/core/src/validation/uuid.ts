const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a canonical UUID; ids that are not one cannot exist, so callers answer 404 or 400. */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
