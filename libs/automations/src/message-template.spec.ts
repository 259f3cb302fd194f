import { renderTemplate, unknownPlaceholders } from './message-template';

const contact = {
  id: 'c1',
  firstName: 'Ada',
  lastName: null,
  address: { city: 'Berlin' },
  properties: { plan: 'pro', 'score.v2': 7, vip: true },
};

describe(renderTemplate.name, () => {
  it('replaces contact fields, with or without spaces inside the braces', () => {
    expect(renderTemplate('Hello {{firstName}}, welcome to {{ address.city }}!', contact)).toBe(
      'Hello Ada, welcome to Berlin!',
    );
  });

  it('reads custom properties, including names that contain dots', () => {
    expect(renderTemplate('{{properties.plan}} {{properties.score.v2}} {{properties.vip}}', contact)).toBe(
      'pro 7 true',
    );
  });

  it('renders a missing or null field as empty text', () => {
    expect(
      renderTemplate('[{{lastName}}][{{phone}}][{{address.street}}][{{properties.none}}]', contact),
    ).toBe('[][][][]');
  });

  it('never renders an object', () => {
    expect(renderTemplate('{{address}}', contact)).toBe('');
  });

  it('leaves text that is not a placeholder alone', () => {
    expect(renderTemplate('{ {firstName}} {{first name}} {{}}', contact)).toBe(
      '{ {firstName}} {{first name}} {{}}',
    );
  });
});

describe(unknownPlaceholders.name, () => {
  it('accepts contact fields and nested paths', () => {
    expect(
      unknownPlaceholders('{{firstName}} {{email}} {{address.city}} {{meta.ps_source}} {{properties.a.b}}'),
    ).toEqual([]);
  });

  it('names typos and unknown roots once each', () => {
    expect(unknownPlaceholders('{{firstname}} {{firstname}} {{address}} {{foo.bar}} {{email.x}}')).toEqual([
      'firstname',
      'address',
      'foo.bar',
      'email.x',
    ]);
  });
});
