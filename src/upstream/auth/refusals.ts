/**
 * What a remote upstream said when it refused a request (401 or 403): the status, and the
 * `error` / `error_description` of its `WWW-Authenticate` challenge or its JSON body. The SDK's
 * errors keep at most the status, so the fetch under the transport notes the last refusal.
 */
import { extractWWWAuthenticateParams, type FetchLike } from '@modelcontextprotocol/client';
import type { ReadableStreamReadResult } from 'node:stream/web';
import { logFailure } from '../../support/log.js';

export interface Refusal {
  readonly status: number;
  readonly error?: string;
  readonly errorDescription?: string;
  readonly scope?: string;
}

/** A refusal body is read for its error fields up to this many bytes (4 KiB); past it only the challenge counts. */
export const REFUSAL_BODY_MAX_BYTES = 4096;

/** Who is told of a refusal, before the SDK's sign-in sees it (the provider, auth/oauth-provider.ts). */
export interface RefusalListener {
  /** A 401 to a request that carried a token: the token no longer holds, and where it came from may have moved (SEP-2352). */
  tokenRefused(): void;
  /** A 403 `insufficient_scope` to a request that carried a token, with the scope it names, if any. */
  scopeRefused(required: string | undefined): void;
}

export class RefusalNotes {
  last: Refusal | undefined;

  constructor(private readonly listener?: RefusalListener) {}

  /** `inner`, noting each 401/403 answer; the response handed on is whole. */
  observe(inner: FetchLike): FetchLike {
    return async (url, init) => {
      const response = await inner(url, init);
      if (response.status !== 401 && response.status !== 403) return response;
      const refusal = await readRefusal(response);
      this.last = refusal;
      if (!new Headers(init?.headers).has('authorization')) return response;
      if (response.status === 401) this.listener?.tokenRefused();
      else if (refusal.error === 'insufficient_scope') this.listener?.scopeRefused(refusal.scope);
      return response;
    };
  }
}

async function readRefusal(response: Response): Promise<Refusal> {
  const challenge = extractWWWAuthenticateParams(response);
  const body = await readErrorBody(response.clone());
  const error = challenge.error ?? body.error;
  const errorDescription = challenge.errorDescription ?? body.error_description;
  return {
    status: response.status,
    ...(error !== undefined ? { error } : {}),
    ...(errorDescription !== undefined ? { errorDescription } : {}),
    ...(challenge.scope !== undefined ? { scope: challenge.scope } : {}),
  };
}

async function readErrorBody(response: Response): Promise<{ error?: string; error_description?: string }> {
  if (!(response.headers.get('content-type') ?? '').includes('json') || response.body === null) return {};
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      const { value, done } = (await reader.read()) as ReadableStreamReadResult<Uint8Array>;
      if (done) break;
      length += value.length;
      if (length > REFUSAL_BODY_MAX_BYTES) return {};
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(logFailure("cancelling the rest of a refusal's body"));
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (parsed === null || typeof parsed !== 'object') return {};
    const { error, error_description } = parsed as Record<string, unknown>;
    return {
      ...(typeof error === 'string' ? { error } : {}),
      ...(typeof error_description === 'string' ? { error_description } : {}),
    };
  } catch {
    return {};
  }
}

/** `401 (invalid_token: the token expired)`, each part quoted within 200 characters. */
export function describeRefusal(refusal: Refusal): string {
  const cut = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
  const said = [refusal.error, refusal.errorDescription].filter((part) => part !== undefined).map((part) => cut(part));
  return said.length === 0 ? `${refusal.status}` : `${refusal.status} (${said.join(': ')})`;
}
