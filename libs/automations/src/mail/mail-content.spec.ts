import { escapeHtml, renderMail, templateLinks } from './mail-content';

describe('renderMail', () => {
  const contact = { firstName: '<script>alert(1)</script>', properties: { site: 'https://evil.example/x' } };
  const mail = renderMail(
    'Hi {{firstName}}',
    'Hello {{firstName}}!\nRead https://acme.example/guide?a=1&b=2. Your site: {{properties.site}}',
    contact,
    { unsubscribeUrl: 'https://crm.example/v1/unsubscribe/tok' },
  );

  it('keeps the text part and the subject plain, with an unsubscribe footer', () => {
    expect(mail.subject).toBe('Hi <script>alert(1)</script>');
    expect(mail.body).toBe(
      'Hello <script>alert(1)</script>!\nRead https://acme.example/guide?a=1&b=2. Your site: https://evil.example/x',
    );
    expect(mail.text).toBe(`${mail.body}\n\n--\nUnsubscribe: https://crm.example/v1/unsubscribe/tok\n`);
  });

  it("escapes values in HTML and links only the template's own addresses", () => {
    expect(mail.html).toContain('Hello &lt;script&gt;alert(1)&lt;/script&gt;!<br>\n');
    expect(mail.html).toContain(
      'Read <a href="https://acme.example/guide?a=1&amp;b=2">https://acme.example/guide?a=1&amp;b=2</a>. ',
    );
    // A contact's value is never made a link, so a contact cannot plant one in the message.
    expect(mail.html).toContain('Your site: https://evil.example/x');
    expect(mail.html).not.toContain('href="https://evil.example');
    expect(mail.html).toContain('<a href="https://crm.example/v1/unsubscribe/tok">Unsubscribe</a>');
    expect(mail.links).toEqual(['https://acme.example/guide?a=1&b=2']);
  });

  it('routes links through the tracked address and adds the pixel when asked', () => {
    const tracked = renderMail(
      's',
      'Go to https://a.example and https://b.example, or https://a.example.',
      {},
      {
        unsubscribeUrl: 'https://crm.example/u',
        trackedLink: (index) => `https://crm.example/c/${index}`,
        openPixelUrl: 'https://crm.example/o',
      },
    );
    expect(tracked.links).toEqual(['https://a.example', 'https://b.example']);
    expect(tracked.html).toContain('<a href="https://crm.example/c/0">https://a.example</a> and ');
    expect(tracked.html).toContain('<a href="https://crm.example/c/1">https://b.example</a>, or ');
    expect(tracked.html).toContain('<img src="https://crm.example/o" width="1" height="1"');
  });
});

describe('templateLinks', () => {
  it('reads the addresses of the template text, not of placeholders', () => {
    expect(templateLinks('See {{properties.url}} or (https://x.example/a).')).toEqual([
      'https://x.example/a',
    ]);
  });
});

describe('escapeHtml', () => {
  it('escapes the five characters that matter in text and attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});
