import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { DevUserLookup } from './dev-user';

export const INTERACTION_PATH = '/interaction/';

const NO_USER =
  'No company to sign in as. Create one with `npm run --silent admin -- demo seed` ' +
  '(or set DEV_USER_COMPANY_ID), then start the authorization again.';

/**
 * The whole login and consent UI of the development identity provider: it signs in the
 * development user and grants what the client asked for, without a page.
 */
export async function approveInteraction(
  provider: Provider,
  findUser: DevUserLookup,
  defaultResource: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { prompt, params, session, grantId } = await provider.interactionDetails(request, response);
  if (prompt.name === 'login') {
    const user = await findUser();
    if (!user) {
      response.writeHead(409, { 'content-type': 'text/plain' }).end(NO_USER);
      return;
    }
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId: user.companyId } },
      {
        mergeWithLastSubmission: false,
      },
    );
    return;
  }
  // Grant exactly what was asked: the OIDC scopes and, for each resource, the requested scopes.
  const grant =
    (grantId && (await provider.Grant.find(grantId))) ||
    new provider.Grant({ accountId: session?.accountId, clientId: String(params.client_id) });
  const scope = typeof params.scope === 'string' ? params.scope : '';
  grant.addOIDCScope(scope);
  for (const resource of [params.resource ?? defaultResource].flat()) {
    grant.addResourceScope(String(resource), scope);
  }
  await provider.interactionFinished(
    request,
    response,
    { consent: { grantId: await grant.save() } },
    {
      mergeWithLastSubmission: true,
    },
  );
}
