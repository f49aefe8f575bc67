/**
 * A script's fetch() calls, made by the server's fetcher (src/fetch/) for one principal: the
 * request as the prelude sent it becomes the fetcher's order, and the response what the prelude
 * makes its Response of (src/script-host/types.ts, FetchAnswer). A failure on the way is answered
 * as `failed`, the script's TypeError; a refusal is thrown, the script's ToolRefused.
 */
import type { Fetcher, FetchedResponse, FetchOrder, FetchParty } from '../fetch/fetcher.js';
import type { FetchAnswer } from '../script-host/types.js';
import type { ScriptFetch } from '../scripts/script-fetch.js';
import type { Principal } from '../state/state-store.js';
import { FetchFailedError } from '../support/errors.js';

export function fetchCaller(fetcher: Fetcher, principal: Principal): ScriptFetch {
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
