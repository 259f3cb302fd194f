import { renderTemplate, renderTemplateWith } from '../message-template';

/** The parts of one email, rendered from an automation's subject and template for one contact. */
export interface MailContent {
  subject: string;
  /** The rendered template alone: what the contact's `messages` show. */
  body: string;
  text: string;
  html: string;
  /** The web addresses the template itself carries, in order: the only targets a tracked click may reach. */
  links: string[];
}

export interface MailDecorations {
  unsubscribeUrl: string;
  /** The address a tracked link goes through instead of the `index`th link; absent, links are direct. */
  trackedLink?: (index: number) => string;
  /** The open pixel's address; absent, no pixel. */
  openPixelUrl?: string;
}

// An http(s) address in running text, without the punctuation that usually ends a sentence.
const WEB_ADDRESS = /\bhttps?:\/\/[^\s<>"']*[^\s<>"'.,;:!?)\]]/g;

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** The web addresses of the template's own text (placeholders excluded), in order, each once. */
export function templateLinks(template: string): string[] {
  const links: string[] = [];
  renderTemplateWith(
    template,
    {},
    (literal) => {
      for (const [url] of literal.matchAll(WEB_ADDRESS)) if (!links.includes(url)) links.push(url);
      return '';
    },
    () => '',
  );
  return links;
}

/**
 * The text part is the rendered template; the HTML part escapes everything, turns the template's
 * own web addresses into links and never a contact's value (a value cannot become markup or a link).
 */
export function renderMail(
  subjectTemplate: string,
  template: string,
  contact: Record<string, unknown>,
  decorations: MailDecorations,
): MailContent {
  const links = templateLinks(template);
  const anchor = (url: string) => {
    const index = links.indexOf(url);
    const href = decorations.trackedLink ? decorations.trackedLink(index) : url;
    return `<a href="${escapeHtml(href)}">${escapeHtml(url)}</a>`;
  };
  const literal = (text: string) => {
    let out = '';
    let last = 0;
    for (const match of text.matchAll(WEB_ADDRESS)) {
      out += escapeHtml(text.slice(last, match.index)) + anchor(match[0]);
      last = match.index + match[0].length;
    }
    return out + escapeHtml(text.slice(last));
  };
  const body = renderTemplateWith(template, contact, literal, escapeHtml).replace(/\r?\n/g, '<br>\n');
  const unsubscribe = escapeHtml(decorations.unsubscribeUrl);
  const pixel = decorations.openPixelUrl
    ? `<img src="${escapeHtml(decorations.openPixelUrl)}" width="1" height="1" alt="" style="display:block;border:0">`
    : '';
  const html =
    '<!doctype html>\n<html><head><meta charset="utf-8"></head><body>\n' +
    `<div>${body}</div>\n` +
    `<p style="font-size:12px;color:#666">You receive this email because you signed up. <a href="${unsubscribe}">Unsubscribe</a></p>\n` +
    `${pixel}</body></html>\n`;
  const plain = renderTemplate(template, contact);
  const text = `${plain}\n\n--\nUnsubscribe: ${decorations.unsubscribeUrl}\n`;
  return { subject: renderTemplate(subjectTemplate, contact), body: plain, text, html, links };
}
