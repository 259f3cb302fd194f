import { isReservedFieldName, MAX_MESSAGE_SUBJECT_LENGTH } from '@app/contacts';
import { ValidationError } from '@app/core';
import {
  MAX_AUTOMATION_NAME_LENGTH,
  MAX_MESSAGE_TEMPLATE_LENGTH,
  MAX_WEBHOOK_SECRET_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  MIN_WEBHOOK_SECRET_LENGTH,
} from './automation-limits';
import { CONTACT_EVENTS, parseTrigger, TriggerSpec } from './automation-trigger-matching';
import { MESSAGE_CHANNELS, MessageChannel } from './entities/automation.entity';
import { unknownPlaceholders } from './message-template';

export interface CreateAutomationInput {
  funnelId: string;
  /** `contact.created`, `contact.updated`, `contact.deleted`, `status:<status>` or `field:<fieldName>`. */
  on: string;
  webhook?: string;
  secret?: string;
  message?: string;
  subject?: string;
  template?: string;
  name?: string;
  /** Email only: false sends plain links and no open pixel (default true). */
  tracking?: boolean;
}

const TEXT_MEMBERS = ['on', 'webhook', 'secret', 'message', 'subject', 'template', 'name'] as const;

export type AutomationActionInput =
  | { action: 'webhook'; url: string; secret: string | null }
  | {
      action: 'message';
      channel: MessageChannel;
      subject: string | null;
      template: string;
      tracking: boolean;
    };

export interface ValidatedAutomation {
  trigger: string;
  spec: TriggerSpec;
  action: AutomationActionInput;
  name: string;
}

/** Checks everything that does not need the database; the funnel's statuses are checked by the caller. */
export function validateAutomationInput(input: CreateAutomationInput): ValidatedAutomation {
  // A JSON body may carry any type where the CLI always gives text.
  const notText = TEXT_MEMBERS.filter((key) => input[key] !== undefined && typeof input[key] !== 'string');
  if (notText.length) {
    const problems = notText.map((key) => `${key} must be a string`);
    throw new ValidationError(problems[0], problems);
  }
  const problems: string[] = [];
  const on = input.on?.trim() ?? '';
  const spec = parseTrigger(on);
  if (!spec) problems.push(`--on must be ${CONTACT_EVENTS.join(', ')}, status:<status> or field:<fieldName>`);
  // A name the contacts API refuses to write never changes, so a trigger on it would never fire.
  if (spec?.kind === 'field' && isReservedFieldName(spec.fieldName)) {
    problems.push(`--on field:${spec.fieldName} names a read-only field that never changes through the API`);
  }

  const action = validateAction(input, problems);
  // The contact is gone when contact.deleted fires: there is no one to record a message for.
  if (spec?.kind === 'contact.deleted' && action?.action === 'message')
    problems.push('--on contact.deleted takes --webhook only: an erased contact has no messages');
  const name = input.name?.trim() || defaultName(on, input);
  if (name.length > MAX_AUTOMATION_NAME_LENGTH)
    problems.push(`--name must be at most ${MAX_AUTOMATION_NAME_LENGTH} characters`);
  if (problems.length || !spec || !action) throw new ValidationError(problems[0], problems);
  return { trigger: triggerString(spec), spec, action, name };
}

function validateAction(input: CreateAutomationInput, problems: string[]): AutomationActionInput | undefined {
  const hasWebhook = input.webhook !== undefined;
  const hasMessage = input.message !== undefined;
  if (hasWebhook === hasMessage) {
    problems.push(`exactly one action is required: --webhook URL or --message ${MESSAGE_CHANNELS.join('|')}`);
    return undefined;
  }
  if (hasWebhook) {
    if (input.template !== undefined) problems.push('--template is only for --message');
    if (input.subject !== undefined) problems.push('--subject is only for --message email');
    const url = input.webhook!.trim();
    if (!isHttpUrl(url)) problems.push('--webhook must be an http:// or https:// URL');
    if (url.length > MAX_WEBHOOK_URL_LENGTH)
      problems.push(`--webhook must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
    const secret = input.secret;
    if (
      secret !== undefined &&
      (secret.length < MIN_WEBHOOK_SECRET_LENGTH ||
        secret.length > MAX_WEBHOOK_SECRET_LENGTH ||
        secret.trim() !== secret)
    ) {
      problems.push(
        `--secret must be ${MIN_WEBHOOK_SECRET_LENGTH} to ${MAX_WEBHOOK_SECRET_LENGTH} characters without surrounding spaces`,
      );
    }
    return { action: 'webhook', url, secret: secret ?? null };
  }
  if (input.secret !== undefined) problems.push('--secret is only for --webhook');
  const channel = input.message as MessageChannel;
  if (!MESSAGE_CHANNELS.includes(channel))
    problems.push(`--message must be ${MESSAGE_CHANNELS.join(' or ')}`);
  if (input.subject !== undefined && channel !== 'email')
    problems.push('--subject is only for --message email');
  if (
    input.subject !== undefined &&
    (!input.subject.trim() || input.subject.length > MAX_MESSAGE_SUBJECT_LENGTH)
  ) {
    problems.push(`--subject must be 1 to ${MAX_MESSAGE_SUBJECT_LENGTH} characters`);
  }
  if (input.tracking !== undefined && (typeof input.tracking !== 'boolean' || channel !== 'email'))
    problems.push('--tracking (on|off) is only for --message email');
  const template = input.template ?? '';
  if (!template.trim()) problems.push('--template is required with --message');
  if (template.length > MAX_MESSAGE_TEMPLATE_LENGTH)
    problems.push(`--template must be at most ${MAX_MESSAGE_TEMPLATE_LENGTH} characters`);
  const unknown = [...unknownPlaceholders(template), ...unknownPlaceholders(input.subject ?? '')];
  if (unknown.length) {
    problems.push(
      `unknown contact field in template: ${[...new Set(unknown)].map((p) => `{{${p}}}`).join(', ')}`,
    );
  }
  return {
    action: 'message',
    channel,
    subject: input.subject ?? null,
    template,
    tracking: input.tracking ?? true,
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && Boolean(url.hostname);
  } catch {
    return false;
  }
}

export function triggerString(spec: TriggerSpec): string {
  if (spec.kind === 'status') return `status:${spec.status}`;
  if (spec.kind === 'field') return `field:${spec.fieldName}`;
  return spec.kind;
}

function defaultName(on: string, input: CreateAutomationInput): string {
  return `${input.webhook !== undefined ? 'webhook' : `${input.message} message`} on ${on}`.slice(
    0,
    MAX_AUTOMATION_NAME_LENGTH,
  );
}
