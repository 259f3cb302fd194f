import { ValidationError } from '@app/core';
import { CreateAutomationInput, validateAutomationInput } from './create-automation.input';

const funnelId = '00000000-0000-4000-8000-000000000000';
const problemsOf = (input: Partial<CreateAutomationInput>) => {
  try {
    validateAutomationInput({ funnelId, on: 'contact.created', ...input });
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).details;
  }
};

describe(validateAutomationInput.name, () => {
  it('refuses a member that is not text, naming it, where a JSON body sends a number', () => {
    const input = {
      message: 'email',
      template: 'Hi',
      name: 0,
      subject: ['x'],
    } as unknown as CreateAutomationInput;
    expect(problemsOf(input)).toEqual(['subject must be a string', 'name must be a string']);
  });

  it('accepts a signed webhook and names it after its trigger', () => {
    expect(
      validateAutomationInput({
        funnelId,
        on: 'status:converted',
        webhook: 'https://hooks.example.com/x',
        secret: 'x'.repeat(16),
      }),
    ).toEqual({
      trigger: 'status:converted',
      spec: { kind: 'status', status: 'converted' },
      action: { action: 'webhook', url: 'https://hooks.example.com/x', secret: 'x'.repeat(16) },
      name: 'webhook on status:converted',
    });
  });

  it('accepts an email message with a subject', () => {
    expect(
      validateAutomationInput({
        funnelId,
        on: 'field:zip',
        message: 'email',
        subject: 'Hi {{firstName}}',
        template: 'Hello {{firstName}}',
        name: 'Welcome',
      }),
    ).toMatchObject({
      trigger: 'field:postalCode',
      action: {
        action: 'message',
        channel: 'email',
        subject: 'Hi {{firstName}}',
        template: 'Hello {{firstName}}',
      },
      name: 'Welcome',
    });
  });

  it.each<[string, Partial<CreateAutomationInput>, string]>([
    ['no action', {}, 'exactly one action is required: --webhook URL or --message email|sms'],
    [
      'two actions',
      { webhook: 'https://x.example', message: 'sms', template: 't' },
      'exactly one action is required: --webhook URL or --message email|sms',
    ],
    [
      'a malformed trigger',
      { on: 'contact.merged', webhook: 'https://x.example' },
      '--on must be contact.created, contact.updated, contact.deleted, status:<status> or field:<fieldName>',
    ],
    [
      'a read-only field',
      { on: 'field:ps_source', webhook: 'https://x.example' },
      '--on field:ps_source names a read-only field that never changes through the API',
    ],
    // The contacts API refuses these names too (whatever their case), so such a trigger never fires.
    [
      'a service-managed ps_ field',
      { on: 'field:ps_x', webhook: 'https://x.example' },
      '--on field:ps_x names a read-only field that never changes through the API',
    ],
    [
      'a ps_ field in upper case',
      { on: 'field:PS_Source', webhook: 'https://x.example' },
      '--on field:PS_Source names a read-only field that never changes through the API',
    ],
    [
      'the __proto__ name',
      { on: 'field:__proto__', webhook: 'https://x.example' },
      '--on field:__proto__ names a read-only field that never changes through the API',
    ],
    [
      'a reserved name in another case',
      { on: 'field:Meta', webhook: 'https://x.example' },
      '--on field:Meta names a read-only field that never changes through the API',
    ],
    ['a non-http URL', { webhook: 'ftp://x.example' }, '--webhook must be an http:// or https:// URL'],
    ['a relative URL', { webhook: '/hooks' }, '--webhook must be an http:// or https:// URL'],
    [
      'a short secret',
      { webhook: 'https://x.example', secret: 'short' },
      '--secret must be 16 to 500 characters without surrounding spaces',
    ],
    [
      'a secret on a message',
      { message: 'sms', template: 'hi', secret: 'x'.repeat(16) },
      '--secret is only for --webhook',
    ],
    [
      'a template on a webhook',
      { webhook: 'https://x.example', template: 'hi' },
      '--template is only for --message',
    ],
    ['an unknown channel', { message: 'fax', template: 'hi' }, '--message must be email or sms'],
    [
      'a subject on sms',
      { message: 'sms', subject: 'Hi', template: 'hi' },
      '--subject is only for --message email',
    ],
    ['a missing template', { message: 'email' }, '--template is required with --message'],
    [
      'a template typo',
      { message: 'sms', template: 'Hi {{firstname}}' },
      'unknown contact field in template: {{firstname}}',
    ],
    [
      'a long name',
      { webhook: 'https://x.example', name: 'n'.repeat(201) },
      '--name must be at most 200 characters',
    ],
    [
      'a message on contact.deleted',
      { on: 'contact.deleted', message: 'email', template: 'Bye' },
      '--on contact.deleted takes --webhook only: an erased contact has no messages',
    ],
  ])('refuses %s', (_, input, problem) => {
    expect(problemsOf(input)).toContain(problem);
  });
});
