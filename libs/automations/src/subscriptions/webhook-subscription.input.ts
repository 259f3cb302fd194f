import { ValidationError } from '@app/core';
import { MAX_WEBHOOK_URL_LENGTH } from '../automation-limits';
import { CONTACT_EVENTS, parseTrigger } from '../automation-trigger-matching';

/** The body of POST .../webhooks. */
export interface CreateWebhookSubscriptionInput {
  targetUrl: string;
  events: string[];
}

export const SUBSCRIPTION_EVENTS_RULE = `events must be a non-empty list of ${CONTACT_EVENTS.join(', ')} or status:<status>`;
export const MAX_SUBSCRIPTION_EVENTS = 10;
export const MAX_SUBSCRIPTIONS_PER_FUNNEL = 20;

/** Checks the body's shape and events (the target is checked by the target policy). */
export function validateSubscriptionInput(
  input: unknown,
  statuses: readonly string[],
): CreateWebhookSubscriptionInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new ValidationError('the request body must be a JSON object');
  const body = input as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(body))
    if (key !== 'targetUrl' && key !== 'events') problems.push(`${key} is not a recognised field`);
  const targetUrl = body.targetUrl;
  if (typeof targetUrl !== 'string' || !targetUrl.trim() || targetUrl.length > MAX_WEBHOOK_URL_LENGTH)
    problems.push(`targetUrl must be an http(s) URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  const events = body.events;
  if (!Array.isArray(events) || !events.length || events.length > MAX_SUBSCRIPTION_EVENTS) {
    problems.push(`${SUBSCRIPTION_EVENTS_RULE} (at most ${MAX_SUBSCRIPTION_EVENTS})`);
  } else {
    for (const event of events) {
      const spec = typeof event === 'string' ? parseTrigger(event) : undefined;
      if (!spec || spec.kind === 'field')
        problems.push(`${SUBSCRIPTION_EVENTS_RULE}: ${JSON.stringify(event)}`);
      else if (spec.kind === 'status' && !statuses.includes(spec.status))
        problems.push(`status:${spec.status} is not a status of this funnel (${statuses.join(', ')})`);
    }
    if (new Set(events).size !== events.length) problems.push('events must not repeat an event');
  }
  if (problems.length) throw new ValidationError(problems[0], problems);
  return { targetUrl: (targetUrl as string).trim(), events: events as string[] };
}
