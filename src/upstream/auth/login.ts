/**
 * `codemode-mcp login <server>`: signs in to one remote upstream ahead of time, in the browser,
 * and keeps the result for the server to use; `codemode-mcp logout <server>` forgets it. The login
 * goes through the same connection as the server's (transport/connect-upstream.ts), so what the
 * server asks for while it connects and lists its tools (a sign-in, more scope) is asked for here,
 * and answered.
 */
import { Client } from '@modelcontextprotocol/client';
import * as z from 'zod';
import { messageWithCauses } from '../connection/error-text.js';
import type { RemoteUpstreamSpec } from '../spec.js';
import { StderrLines } from '../../support/stderr-lines.js';
import { LiveGroups } from '../../support/process-group.js';
import { UPSTREAM_VERSION_NEGOTIATION } from '../connection/revision.js';
import { connectUpstream, remoteFetch } from '../transport/connect-upstream.js';
import { authDirectory } from './auth-directory.js';
import { describeAuthFailure } from './describe-auth-failure.js';
import { finishSignIn } from './finish-sign-in.js';
import { LoopbackRedirect, SIGN_IN_WAIT_MS } from './loopback-redirect.js';
import { DEFAULT_OAUTH, UpstreamOAuthProvider } from './oauth-provider.js';
import { RefusalNotes } from './refusals.js';
import { SignInFile } from './sign-in-file.js';
import { cleartextSignInRefusal, signsInOverCleartext } from './cleartext-sign-in.js';
import { inlineSecretWarning } from './upstream-auth.js';
import { logFailure, Logger } from '../../support/log.js';
import { CodemodeError } from '../../support/errors.js';
import { timeoutSignal } from '../../support/timeout-signal.js';

/** Sign-ins one login goes through (a first one, then more scope the server asks for) before it gives up. */
export const LOGIN_ROUNDS_MAX = 3;

export interface LoginOptions {
  /** Where the link and progress go: our stderr. */
  readonly log: (line: string) => void;
  /** Whether to open the system browser on the link (it is printed either way). */
  readonly openBrowser: (url: string) => Promise<void>;
  /** An upstream that hasn't answered within this has failed (upstreamStartTimeoutMs). */
  readonly timeoutMs: number;
  /** The longest message read from the upstream (read-limit.ts). */
  readonly maxMessageBytes: number;
  readonly version: string;
  /** Where sign-ins are kept. Default: authDirectory(). */
  readonly directory?: string;
  readonly signal?: AbortSignal;
}

/** Thrown with a message that says what went wrong and what to do; the CLI prints it and exits 1. */
export class LoginError extends CodemodeError {
  override readonly name = 'LoginError';

  constructor(text: string, options?: ErrorOptions) {
    super('LOGIN_FAILED', text, options);
  }
}

const TOOLS_PAGE = z.looseObject({ tools: z.array(z.unknown()) });

/** Signs in and returns what to say, for a Logger to print; throws LoginError. */
export async function login(spec: RemoteUpstreamSpec, options: LoginOptions): Promise<string> {
  const oauth = spec.oauth ?? DEFAULT_OAUTH;
  if (oauth.grant === 'client_credentials') {
    throw new LoginError(
      `upstream "${spec.name}" uses the client_credentials grant: codemode-mcp gets its tokens itself at each start, so there is nothing to sign in to`,
    );
  }
  if (signsInOverCleartext(spec)) {
    throw new LoginError(`won't sign in to "${spec.name}" (${spec.url}): ${cleartextSignInRefusal()}`);
  }
  const log = Logger.of(options.log);
  if (oauth.secretWrittenInline) log.warn(inlineSecretWarning(spec));
  const directory = options.directory ?? authDirectory();
  const file = new SignInFile(directory, spec.url);
  const fetch = remoteFetch(spec, options);
  const signal = options.signal ?? new AbortController().signal;
  let receiver: LoopbackRedirect | undefined;
  let redirected: boolean;
  const provider: UpstreamOAuthProvider = new UpstreamOAuthProvider({
    serverUrl: spec.url,
    oauth,
    file,
    fetch,
    ignoreStoredTokens: true,
    onAuthorizationUrl: async (url) => {
      receiver ??= await LoopbackRedirect.listen(provider.redirectPort!, (state) => provider.knowsState(state));
      redirected = true;
      // The person's instructions, not a log line: written as they are.
      options.log(`Sign in to "${spec.name}" in your browser; if none opens, open this link:\n\n  ${url.href}\n`);
      await options
        .openBrowser(url.href)
        .catch((error: Error) => log.warn(`could not open a browser (${error.message}); open the link above`));
    },
  });
  try {
    await provider.prepare();
    // Listen at once on the port prepare() chose, rather than when the authorization URL comes
    // (after discovery and registration): a port found free and left unheld meanwhile can be taken.
    if (provider.interactive)
      receiver = await LoopbackRedirect.listen(provider.redirectPort!, (state) => provider.knowsState(state));
    for (let round = 1; ; round++) {
      redirected = false;
      const refusals = new RefusalNotes(provider);
      try {
        const count = await connectAndCount(spec, provider, refusals, options, signal);
        return `signed in to "${spec.name}" (${spec.url}): ${count} tools. Kept in ${file.path}`;
      } catch (error) {
        if (!redirected || receiver === undefined) {
          const said = describeAuthFailure(error, { spec, refusal: refusals.last, oauth: true }) ?? messageWithCauses(error);
          throw new LoginError(`could not sign in to "${spec.name}" (${spec.url}): ${said}`, { cause: error });
        }
        if (round === LOGIN_ROUNDS_MAX) {
          throw new LoginError(
            `"${spec.name}" still asked for a sign-in after ${LOGIN_ROUNDS_MAX} sign-ins; the account may lack the access it wants`,
          );
        }
      }
      try {
        await finishSignIn(
          provider,
          receiver,
          { name: spec.name, serverUrl: spec.url, fetch },
          AbortSignal.any([signal, timeoutSignal(SIGN_IN_WAIT_MS)]),
        );
      } catch (error) {
        const why =
          error instanceof DOMException && error.name === 'TimeoutError'
            ? `no sign-in came back within ${SIGN_IN_WAIT_MS / 60_000} min`
            : messageWithCauses(error);
        throw new LoginError(`could not sign in to "${spec.name}": ${why}`, { cause: error });
      }
    }
  } finally {
    await receiver?.close();
  }
}

/** Forgets the upstream's sign-in (its tokens and client registration); what to say, for a Logger to print. */
export function logout(spec: RemoteUpstreamSpec, directory: string = authDirectory()): string {
  const file = new SignInFile(directory, spec.url);
  return file.remove()
    ? `signed out of "${spec.name}" (${spec.url}): removed ${file.path}`
    : `no sign-in is kept for "${spec.name}" (${spec.url}); nothing to remove`;
}

async function connectAndCount(
  spec: RemoteUpstreamSpec,
  provider: UpstreamOAuthProvider,
  refusals: RefusalNotes,
  options: LoginOptions,
  signal: AbortSignal,
): Promise<number> {
  const connected = await connectUpstream(spec, {
    createClient: () =>
      new Client(
        { name: 'codemode-mcp', version: options.version },
        { capabilities: {}, versionNegotiation: UPSTREAM_VERSION_NEGOTIATION },
      ),
    stderr: new StderrLines('', options.log),
    // A remote upstream: no process of ours, no process group.
    processGroups: new LiveGroups(),
    timeoutMs: options.timeoutMs,
    signal,
    maxMessageBytes: options.maxMessageBytes,
    log: options.log,
    authProvider: provider,
    refusals,
  });
  try {
    if (!connected.client.getServerCapabilities()?.tools) return 0;
    const page = await connected.client.request({ method: 'tools/list', params: {} }, TOOLS_PAGE, {
      timeout: options.timeoutMs,
      signal,
    });
    return page.tools.length;
  } finally {
    await connected.client.close().catch(logFailure('closing the connection a sign-in was checked on'));
  }
}
