import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'X-Request-Id';

// Visible ASCII only: an id is copied into log lines and a response header, where control
// characters, spaces or a megabyte of text would forge lines or bloat them.
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The caller's `X-Request-Id` when it is sane, else a new one. */
export function requestIdFor(incoming: string | string[] | undefined): string {
  const id = Array.isArray(incoming) ? incoming[0] : incoming;
  return id !== undefined && SANE_REQUEST_ID.test(id) ? id : randomUUID();
}
