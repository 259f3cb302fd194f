// The limits of an automation's inputs, shared by the service's checks, the REST DTOs, the admin
// CLI and the columns that store them.

export const MAX_AUTOMATION_NAME_LENGTH = 200;
/** A webhook URL, of an automation or of a REST hook subscription. */
export const MAX_WEBHOOK_URL_LENGTH = 2000;
// A guessable secret makes the signature worthless.
export const MIN_WEBHOOK_SECRET_LENGTH = 16;
export const MAX_WEBHOOK_SECRET_LENGTH = 500;
// A message's subject is bounded by the contacts column that stores the recorded message
// (MAX_MESSAGE_SUBJECT_LENGTH of contacts).
export const MAX_MESSAGE_TEMPLATE_LENGTH = 10_000;

/** How many runs `automation runs` lists. */
export const DEFAULT_RUNS_LIMIT = 100;
export const MAX_RUNS_LIMIT = 1000;
export const RUNS_LIMIT_RULE = `--limit must be an integer between 1 and ${MAX_RUNS_LIMIT}`;
