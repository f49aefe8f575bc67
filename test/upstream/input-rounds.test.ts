// A call to an upstream in 2026-07-28 made for a script: its input_required rounds fulfilled by
// asking the caller's client (src/upstream/routing/input-rounds.ts), over a scripted upstream.
import { describe, expect, test } from 'vitest';
import { INPUT_ROUNDS_MAX, fulfilRounds, type RoundAsk } from '../../src/upstream/routing/input-rounds.js';
import type { UpstreamInputRequired, UpstreamRound } from '../../src/upstream/routing/round-trip.js';
import type { RelayedRequest } from '../../src/upstream/routing/relay.js';

const of = { server: 'up', tool: 'up__tool' };
const NAME: RelayedRequest = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
};
const ROOTS: RelayedRequest = { method: 'roots/list', params: {} };
const asks = (inputRequests: Record<string, unknown>, requestState?: string): UpstreamInputRequired => ({
  resultType: 'input_required',
  inputRequests: inputRequests as UpstreamInputRequired['inputRequests'],
  ...(requestState !== undefined ? { requestState } : {}),
});

/** An upstream that answers each round in turn with `answers`, keeping the rounds it was sent. */
function upstream(answers: ReadonlyArray<UpstreamInputRequired | { text: string }>) {
  const rounds: UpstreamRound[] = [];
  return {
    rounds,
    send: async (round: UpstreamRound) => {
      rounds.push(round);
      const answer = answers[rounds.length - 1];
      if (answer === undefined) throw new Error('asked once too often');
      return answer;
    },
  };
}

describe('fulfilRounds', () => {
  test("asks each round's requests at once and sends the answers back with the upstream's requestState as it came", async () => {
    const up = upstream([asks({ who: NAME, where: ROOTS }, 'state-1'), asks({ again: NAME }, 'state-2'), { text: 'done' }]);
    const asked: string[] = [];
    const ask: RoundAsk = async (request) => {
      asked.push(request.method);
      return request.method === 'roots/list' ? { roots: [] } : { action: 'accept', content: { name: 'Ada' } };
    };
    expect(await fulfilRounds(up.send, ask, of)).toEqual({ text: 'done' });
    expect(asked).toEqual(['elicitation/create', 'roots/list', 'elicitation/create']);
    expect(up.rounds).toEqual([
      {},
      { inputResponses: { who: { action: 'accept', content: { name: 'Ada' } }, where: { roots: [] } }, requestState: 'state-1' },
      { inputResponses: { again: { action: 'accept', content: { name: 'Ada' } } }, requestState: 'state-2' },
    ]);
  });

  test('the first request of a round to fail ends the others and the call with its error', async () => {
    const up = upstream([asks({ who: NAME, where: ROOTS })]);
    let sibling: AbortSignal | undefined;
    const ask: RoundAsk = (request, signal) => {
      if (request.method === 'roots/list') return Promise.reject(new Error('the client has no roots'));
      sibling = signal;
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
    };
    await expect(fulfilRounds(up.send, ask, of)).rejects.toThrow('the client has no roots');
    expect(sibling?.aborted).toBe(true);
    expect(up.rounds).toHaveLength(1);
  });

  test('a request of a method the revision does not define fails the call before anything is asked', async () => {
    const up = upstream([asks({ who: NAME, odd: { method: 'tools/call', params: {} } })]);
    const asked: string[] = [];
    const ask: RoundAsk = async (request) => {
      asked.push(request.method);
      return { action: 'accept', content: {} };
    };
    await expect(fulfilRounds(up.send, ask, of)).rejects.toThrow(
      'inputRequests["odd"] asks "tools/call", not one of elicitation/create, sampling/createMessage, roots/list',
    );
    expect(asked).toEqual([]);
  });

  test(`an upstream still asking after ${INPUT_ROUNDS_MAX} rounds fails the call, saying so`, async () => {
    const up = upstream(Array.from({ length: INPUT_ROUNDS_MAX + 1 }, (_, round) => asks({ [`q${round}`]: ROOTS })));
    const ask: RoundAsk = async () => ({ roots: [] });
    await expect(fulfilRounds(up.send, ask, of)).rejects.toThrow(
      `it still answered input_required after ${INPUT_ROUNDS_MAX} rounds of answers (INPUT_ROUNDS_MAX)`,
    );
    expect(up.rounds).toHaveLength(INPUT_ROUNDS_MAX + 1);
  });
});
