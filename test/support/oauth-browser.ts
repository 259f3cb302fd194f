/** One request the flow made: method, path (or full URL off the service) and status. */
export type FlowStep = string;

/**
 * Stands in for the user's browser in the authorization-code flow: follows redirects from the
 * authorize URL (keeping each host's cookies) until the identity provider sends the browser to
 * `redirectUri`, and returns that final URL (carrying `code` and `state`).
 */
export async function followAuthorization(
  authorizationUrl: URL,
  redirectUri: string,
  record: (step: FlowStep) => void,
): Promise<URL> {
  const cookies = new Map<string, Map<string, string>>();
  let url = authorizationUrl;
  for (let hop = 0; hop < 15; hop++) {
    const jar = cookies.get(url.host) ?? new Map<string, string>();
    cookies.set(url.host, jar);
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    record(`GET ${url.origin}${url.pathname} ${res.status}`);
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, ...value] = pair.split('=');
      jar.set(name.trim(), value.join('='));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`authorization stopped at ${url} with ${res.status}: ${await res.text()}`);
    url = new URL(location, url);
    if (url.toString().startsWith(redirectUri)) return url;
  }
  throw new Error('too many redirects');
}
