import { escapeHtml } from '../mail/mail-content';

// Self-contained: no script, no outside resource; the form posts to the page's own address.
const page = (title: string, body: string) =>
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title></head>\n` +
  '<body style="font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem">\n' +
  `<h1 style="font-size:1.4rem">${escapeHtml(title)}</h1>\n${body}\n</body></html>\n`;

/** The page an email's unsubscribe link opens: a button, since mail scanners follow links (GET) on their own. */
export const confirmPage = (): string =>
  page(
    'Unsubscribe from these emails?',
    '<p>You will no longer receive emails from these automations.</p>\n' +
      '<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">' +
      '<button type="submit" style="font-size:1rem;padding:.5rem 1rem">Unsubscribe</button></form>',
  );

export const donePage = (): string =>
  page('You are unsubscribed', '<p>You will no longer receive these emails.</p>');
