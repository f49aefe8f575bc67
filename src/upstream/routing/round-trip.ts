/**
 * One round of a 2026-07-28 request passed through to an upstream that speaks that revision
 * (SEP-2322): the client's answers and the upstream's own `requestState` go to the upstream as
 * the client sent them, and the upstream's `input_required` comes back as it sent it, for our
 * client to answer, instead of being fulfilled here (relay.ts) with requests of our own.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  isInputRequiredResult,
  type ClientCapabilities,
  type InputRequests,
} from '@modelcontextprotocol/client';
import { TASKS_EXTENSION } from './task-answer.js';

export interface UpstreamRound {
  /** The client's answers to the upstream's last requests, as it sent them (the upstream checks them). */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /** The upstream's own `requestState` from its last `input_required`, echoed. */
  readonly requestState?: string;
  /** What the client declared it can answer: the upstream is told so, and asks only for that. Absent: what we declare. */
  readonly capabilities?: ClientCapabilities;
  /** Declares the Tasks extension: the upstream may answer with a task of its own (task-answer.ts). */
  readonly tasks?: boolean;
}

/** An upstream's `input_required`, as it sent it. */
export interface UpstreamInputRequired {
  readonly resultType: 'input_required';
  readonly inputRequests: InputRequests;
  readonly requestState?: string;
}

/** The capabilities through which an upstream asks for input: the client's, not ours, on a round passed through. */
const ANSWERED_BY_THE_CLIENT = ['elicitation', 'sampling', 'roots'] as const;

/**
 * A request's params for a round: the client's answers and the upstream's state beside them, and
 * in `_meta` the capabilities of the client that will answer (our own for everything else, with
 * the Tasks extension when the round declares it; a request's `_meta` key wins over the SDK's envelope).
 */
export function roundParams(
  params: Readonly<Record<string, unknown>>,
  round: UpstreamRound,
  ours: ClientCapabilities,
): Record<string, unknown> {
  const meta = (params._meta ?? {}) as Record<string, unknown>;
  const capabilities: Record<string, unknown> = { ...ours };
  if (round.tasks === true) capabilities.extensions = { ...ours.extensions, [TASKS_EXTENSION]: {} };
  // A round we fulfil ourselves (input-rounds.ts) declares ours: our relay asks the caller's client in turn.
  if (round.capabilities !== undefined) {
    for (const key of ANSWERED_BY_THE_CLIENT) {
      delete capabilities[key];
      if (round.capabilities[key] !== undefined) capabilities[key] = round.capabilities[key];
    }
  }
  return {
    ...params,
    ...(round.inputResponses !== undefined ? { inputResponses: round.inputResponses } : {}),
    ...(round.requestState !== undefined ? { requestState: round.requestState } : {}),
    _meta: { ...meta, [CLIENT_CAPABILITIES_META_KEY]: capabilities },
  };
}

/** The upstream's `input_required` in an answer, or undefined for any other answer. */
export function inputRequiredOf(answer: unknown): UpstreamInputRequired | undefined {
  if (!isInputRequiredResult(answer)) return undefined;
  return {
    resultType: 'input_required',
    inputRequests: answer.inputRequests ?? {},
    ...(answer.requestState !== undefined ? { requestState: answer.requestState } : {}),
  };
}

export function isUpstreamInputRequired(answer: unknown): answer is UpstreamInputRequired {
  return (answer as { resultType?: unknown } | undefined)?.resultType === 'input_required';
}
