/**
 * What every HTTP request passes before anything else: its Host and Origin name this server
 * (DNS-rebinding protection: a web page whose name resolves to 127.0.0.1 sends its own name),
 * and it carries the bearer token when one is set.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { HTTP_TOKEN_ENV } from '../config/http-options.js';
import { httpRefusal, type HttpRefusal } from './refusal.js';
import type { TokenTable } from './tokens-file.js';

export interface GuardOptions {
  /** Hostnames Host and Origin may name (http-options.ts acceptedHostnames). */
  readonly hostnames: readonly string[];
  readonly token: string | undefined;
  /** The tokens file's tokens, as last read (tokens-file.ts): each names a principal. */
  readonly tokens?: () => TokenTable | undefined;
}

/** Who passed the guard: the principal its token names (undefined: the one token, or none asked for). */
export type Admitted = { readonly principal: string | undefined };

/** The refusal for a request that fails a check (403 for Host or Origin, 401 for the token), or who it is. */
export function guardRequest(headers: IncomingHttpHeaders, options: GuardOptions): HttpRefusal | Admitted {
  const allowed = [...options.hostnames];
  const host = validateHostHeader(headers.host, allowed);
  if (!host.ok) {
    return httpRefusal(
      403,
      `Forbidden: ${host.message}. This server answers requests for ${allowed.join(', ')}; ` +
        'to serve another name (a proxy in front of it), start it with --http-allowed-hosts <name>',
    );
  }
  const origin = validateOriginHeader(headers.origin, allowed);
  if (!origin.ok) {
    return httpRefusal(
      403,
      `Forbidden: ${origin.message}. Pages from ${allowed.join(', ')} may call this server; add another with --http-allowed-hosts <name>`,
    );
  }
  const table = options.tokens?.();
  if (options.token === undefined && table === undefined) return { principal: undefined };
  const presented = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '')?.[1];
  const principal = presented === undefined ? undefined : table?.principalOf(presented);
  if (principal !== undefined) return { principal };
  if (presented === undefined || options.token === undefined || !sameToken(presented, options.token)) {
    const challenge =
      presented === undefined ? 'Bearer realm="codemode-mcp"' : 'Bearer realm="codemode-mcp", error="invalid_token"';
    const why = presented === undefined ? 'no "Authorization: Bearer <token>" header' : "the bearer token is not this server's";
    return httpRefusal(
      401,
      `Unauthorized: ${why}. Send a token the server was started with (--http-token or ${HTTP_TOKEN_ENV}, or yours in its --http-tokens-file) as "Authorization: Bearer <token>"`,
      { 'WWW-Authenticate': challenge },
    );
  }
  return { principal: undefined };
}

/**
 * Constant-time: both sides are hashed to the same length first, as timingSafeEqual needs. Our
 * own check rather than the SDK's requireBearerAuth, which is built for OAuth verifiers (scopes,
 * expiry, resource) where a fixed token needs only this.
 */
function sameToken(presented: string, token: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(token));
}
