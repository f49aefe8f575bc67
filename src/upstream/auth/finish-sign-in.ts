/**
 * The second half of a browser sign-in: the redirect arrives on the loopback port, its code is
 * exchanged by the SDK's auth() for tokens (which the provider keeps), and the browser is told.
 */
import { auth, OAuthError, type FetchLike } from '@modelcontextprotocol/client';
import type { LoopbackRedirect } from './loopback-redirect.js';
import type { UpstreamOAuthProvider } from './oauth-provider.js';

export async function finishSignIn(
  provider: UpstreamOAuthProvider,
  receiver: LoopbackRedirect,
  target: { readonly name: string; readonly serverUrl: string; readonly fetch: FetchLike },
  signal: AbortSignal,
): Promise<void> {
  const { params, respond } = await receiver.next(signal);
  if (params.kind === 'refused') {
    const said = `${params.error}${params.errorDescription === undefined ? '' : `: ${params.errorDescription}`}`;
    respond(false, `The authorization server refused the sign-in (${said}).`);
    throw new OAuthError(params.error, params.errorDescription ?? '');
  }
  provider.useState(params.state);
  try {
    const result = await auth(provider, {
      serverUrl: target.serverUrl,
      authorizationCode: params.code,
      ...(params.iss !== undefined ? { iss: params.iss } : {}),
      fetchFn: target.fetch,
    });
    if (result !== 'AUTHORIZED') throw new Error('the authorization server asked for another sign-in instead of issuing a token');
  } catch (error) {
    respond(
      false,
      `codemode-mcp could not finish signing in to "${target.name}": ${error instanceof Error ? error.message : String(error)}`,
    );
    throw error;
  }
  respond(true, `codemode-mcp is signed in to "${target.name}". You can close this tab.`);
}
