/** What each scope lets a client do, in the words the consent page shows. */
const SCOPE_WORDS: Record<string, string> = {
  'crm:read': 'read your workspaces, funnels and contacts',
  'crm:write': 'create, change and delete your contacts',
  'metrics:read': 'read your funnel metrics',
  offline_access: 'keep this access until you revoke it (a refresh token)',
};

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** Where a redirect URI sends the user: its host, or the app scheme of a native client. */
export function redirectTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host || `${url.protocol}//`;
}

export interface ConsentPageInput {
  clientId: string;
  clientName?: string;
  redirectUri: string;
  scopes: string[];
  consentToken: string;
  action: string;
}

/**
 * The consent page: names the client (its own name marked as unverified, its id), where it sends
 * the browser and what it asks for, with one form whose approval carries the consent token.
 */
export function consentPage(input: ConsentPageInput): string {
  const name = input.clientName ? escapeHtml(input.clientName.slice(0, 200)) : 'An unnamed client';
  const scopes = input.scopes
    .map((scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(SCOPE_WORDS[scope] ?? scope)}</li>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Allow access to your Funnel CRM data?</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
.host{font-weight:bold;font-size:1.2em}button{font-size:1rem;padding:.5rem 1.2rem;margin-right:1rem}</style></head>
<body><main>
<h1>Allow access to your Funnel CRM data?</h1>
<p><strong id="client-name">${name}</strong> (a name the client chose itself; not verified) asks for access.</p>
<p>If you allow it, your browser goes to <span class="host" id="redirect-host">${escapeHtml(redirectTarget(input.redirectUri))}</span>
with a code that gives that site or app this access. Allow it only if you started this sign-in there.</p>
<p>Client id: <code id="client-id">${escapeHtml(input.clientId)}</code></p>
<p>It asks to:</p><ul id="scopes">${scopes}</ul>
<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="consent_token" value="${escapeHtml(input.consentToken)}">
<button type="submit" name="decision" value="approve" id="approve">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form></main></body></html>`;
}

/** Headers of every consent page: never framed (clickjacking), cached or leaked as a referrer. */
export const CONSENT_PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  // No form-action: the approval's redirect goes to the client's URI, which Chromium checks against it.
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};
