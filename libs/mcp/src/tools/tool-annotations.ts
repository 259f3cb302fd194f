import type { ToolAnnotations } from '@modelcontextprotocol/server';

// Every hint is given, as a client assumes the worst of a missing one (destructive, open world).

/** Reads this service's own data: no change, safe to repeat, nothing outside is reached. */
export const READS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
