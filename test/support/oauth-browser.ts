/** One request the flow made: method, path (or full URL off the service) and status. */
export type FlowStep = string;

/** The consent token in a consent page's form. */
export const consentTokenOf = (html: string): string | undefined =>
  /name="consent_token" value="([^"]+)"/.exec(html)?.[1];

/**
 * Stands in for the user's browser in the authorization-code flow: follows redirects from the
 * authorize URL (keeping each host's cookies), answers the service's consent page with `decision`
 * (a first sign-in of each client shows one), until the browser is sent to `redirectUri`, and
 * returns that final URL (carrying `code` and `state`, or an error).
 */
export async function followAuthorization(
  authorizationUrl: URL,
  redirectUri: string,
  record: (step: FlowStep) => void,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  const cookies = new Map<string, Map<string, string>>();
  let url = authorizationUrl;
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < 15; hop++) {
    const jar = cookies.get(url.host) ?? new Map<string, string>();
    cookies.set(url.host, jar);
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      body: form,
      redirect: 'manual',
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    record(`${form ? 'POST' : 'GET'} ${url.origin}${url.pathname} ${res.status}`);
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, ...value] = pair.split('=');
      jar.set(name.trim(), value.join('='));
    }
    form = undefined;
    const location = res.headers.get('location');
    if (!location) {
      const body = await res.text();
      const consentToken = res.status === 200 ? consentTokenOf(body) : undefined;
      if (!consentToken) throw new Error(`authorization stopped at ${url} with ${res.status}: ${body}`);
      form = new URLSearchParams({ consent_token: consentToken, decision });
      url = new URL('/oauth/consent', url);
      continue;
    }
    url = new URL(location, url);
    if (url.toString().startsWith(redirectUri)) return url;
  }
  throw new Error('too many redirects');
}
