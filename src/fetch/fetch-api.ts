/**
 * A script's fetch() calls, made by the server's fetcher (fetcher.ts) for one principal: the
 * request as the prelude sent it becomes the fetcher's order, and the response what the prelude
 * makes its Response of (src/script-host/apis.ts, FetchAnswer). A failure on the way is answered
 * as `failed`, the script's TypeError; a refusal is thrown, the script's ToolRefused.
 */
import type { FetchAnswer, FetchCaller, TimeoutHold } from '../script-host/apis.js';
import { FetchFailedError } from '../support/errors.js';
import type { CallCaller } from '../telemetry/observe-call.js';
import type { Fetcher, FetchedResponse, FetchOrder, FetchParty, FetchQuestion } from './fetcher.js';

/**
 * Asks a person about one request: resolves with what to call once the request has settled, or
 * rejects with the gate's ToolRefused (APPROVAL_DENIED, …). The call's timeout is held meanwhile.
 */
export type ApproveRequest = (question: FetchQuestion, signal: AbortSignal, hold: TimeoutHold | undefined) => Promise<() => void>;

/** One script, as its fetches need it. */
export interface FetchingScript {
  readonly id: string;
  /** Its span and who runs it (`caller.script` holds the principal and the session). */
  readonly caller: CallCaller;
  /** Absent: no one is asked, and every request the policy allows goes. */
  readonly approve?: ApproveRequest;
}

/** The fetch() calls of each script of one owner (src/scripts/script-apis.ts makes each script's). */
export type ScriptFetch = (script: FetchingScript) => FetchCaller;

export function fetchApi(fetcher: Fetcher, principal: string): ScriptFetch {
  return (script) => async (request, signal, hold) => {
    const { body } = request;
    const order: FetchOrder = {
      url: request.url,
      method: request.method,
      headers: request.headers,
      redirect: request.redirect,
      ...(body !== undefined
        ? { body: 'text' in body ? Buffer.from(body.text, 'utf8') : Buffer.from(body.base64, 'base64') }
        : {}),
    };
    const { approve, caller } = script;
    const party: FetchParty = {
      principal,
      session: caller.script?.session ?? '',
      script: script.id,
      ...(caller.trace !== undefined ? { trace: caller.trace } : {}),
      ...(approve !== undefined ? { approve: (question) => approve(question, signal, hold) } : {}),
    };
    try {
      return answerOf(await fetcher.fetch(order, party, signal));
    } catch (error) {
      if (error instanceof FetchFailedError) return { failed: error.message, isError: true };
      throw error;
    }
  };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as text when its bytes are UTF-8 (a byte order mark kept: the prelude's text() drops it), else as base64. */
function answerOf(response: FetchedResponse): FetchAnswer {
  const { status, statusText, url, redirected, headers } = response;
  let bodyText: string | undefined;
  try {
    bodyText = UTF8.decode(response.body);
  } catch {
    bodyText = undefined; // not UTF-8: its bytes go as base64, and the prelude decodes them if the script asks for text
  }
  return {
    status,
    statusText,
    url,
    redirected,
    headers,
    ...(bodyText !== undefined ? { bodyText } : { bodyBase64: response.body.toString('base64') }),
  };
}
