/**
 * A call to an upstream that speaks 2026-07-28, made for a script (or a client not handed the
 * rounds themselves): the upstream asks for input by answering `input_required`, and each request
 * in it is asked here of the caller's own client, as that call's own (the answer names the call,
 * where a 2025 upstream's server-to-client request names none: call-origins.ts). The answers and
 * the upstream's `requestState`, byte for byte, go back with the retry, round after round, until
 * the upstream answers. Several requests in a round are asked at once; the first to fail ends the
 * others and the call.
 */
import type { InputRequests } from '@modelcontextprotocol/client';
import { UpstreamAnswerError } from '../../support/errors.js';
import { isUpstreamInputRequired, type UpstreamInputRequired, type UpstreamRound } from './round-trip.js';
import type { RelayedRequest, RelayedResult } from './relay.js';

/**
 * 10: the most rounds of `input_required` one call may take (the SDK client's own default); past
 * it the call fails with UPSTREAM_ANSWER_INVALID, saying so, and nothing more is asked.
 */
export const INPUT_ROUNDS_MAX = 10;

/**
 * 250 ms: the wait before retrying a round that asked for nothing (only a `requestState`: the
 * upstream's "try again"), so such rounds don't spin; each counts toward INPUT_ROUNDS_MAX.
 */
export const STATE_ONLY_ROUND_WAIT_MS = 250;

/** Asks the caller's client one request of the upstream; `signal` ends it (the call's end, or a sibling's failure). */
export type RoundAsk = (request: RelayedRequest, signal: AbortSignal) => Promise<RelayedResult>;

/** The methods an upstream may ask through `input_required`. */
const ASKABLE = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

/** Who is called, for errors: the upstream's name and the tool's name as the script called it. */
export interface RoundsOf {
  readonly server: string;
  readonly tool: string;
}

/** Sends the call (`send`, one round each), asking what it asks with `ask`, until it answers. */
export async function fulfilRounds<R>(
  send: (round: UpstreamRound) => Promise<R | UpstreamInputRequired>,
  ask: RoundAsk,
  of: RoundsOf,
): Promise<R> {
  let answer = await send({});
  for (let round = 1; isUpstreamInputRequired(answer); round++) {
    if (round > INPUT_ROUNDS_MAX) {
      throw new UpstreamAnswerError(
        of.server,
        of.tool,
        `it still answered input_required after ${INPUT_ROUNDS_MAX} rounds of answers (INPUT_ROUNDS_MAX)`,
      );
    }
    const asked = answer.inputRequests;
    const inputResponses = Object.keys(asked).length > 0 ? await askRound(asked, ask, of) : undefined;
    if (inputResponses === undefined) await new Promise((resolve) => setTimeout(resolve, STATE_ONLY_ROUND_WAIT_MS));
    answer = await send({
      ...(inputResponses !== undefined ? { inputResponses } : {}),
      ...(answer.requestState !== undefined ? { requestState: answer.requestState } : {}),
    });
  }
  return answer;
}

/**
 * Every request of a round (or of an upstream task's input_required: upstream-task.ts) asked at
 * once, keyed as the upstream keyed them; the first failure aborts the rest.
 */
export async function askRound(requests: InputRequests, ask: RoundAsk, of: RoundsOf): Promise<Record<string, RelayedResult>> {
  // Checked whole before anything is asked: a person is not asked half of a round that can't be sent back.
  for (const [key, request] of Object.entries(requests)) {
    const method = (request as { method?: unknown } | null)?.method;
    if (typeof method !== 'string' || !ASKABLE.has(method)) {
      throw new UpstreamAnswerError(
        of.server,
        of.tool,
        `inputRequests[${JSON.stringify(key)}] asks ${typeof method === 'string' ? JSON.stringify(method) : 'no method'}, ` +
          `not one of ${[...ASKABLE].join(', ')}`,
      );
    }
  }
  const round = new AbortController();
  const answers = await Promise.all(
    Object.entries(requests).map(async ([key, request]) => {
      try {
        return [key, await ask(request, round.signal)] as const;
      } catch (error) {
        round.abort(error);
        throw error;
      }
    }),
  );
  return Object.fromEntries(answers);
}
