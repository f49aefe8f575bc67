/**
 * An exposed tool or prompt whose upstream speaks 2026-07-28, called directly by a 2026-07-28
 * client: the upstream asks for input by answering `input_required` itself, and that answer goes
 * to the client unchanged (the upstream's keys, its requests), with a `requestState` of ours that
 * wraps the upstream's own: signed (the process's codec, input-required.ts), naming the tool or
 * prompt. The client's retry brings the answers; they go back to the upstream with its own
 * requestState, and its answer comes back in turn: a result, or another round. Nothing waits here
 * between rounds, since the upstream keeps its state in the requestState. (An upstream that
 * speaks 2025 asks by server-to-client requests instead, which exposed-input.ts turns into rounds.)
 */
import {
  MissingRequiredClientCapabilityError,
  inputRequired,
  type ClientCapabilities,
  type InputRequest,
  type InputRequests,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isUpstreamInputRequired, type UpstreamInputRequired, type UpstreamRound } from '../upstream/round-trip.js';
import { foreignState, type ResumeState } from './input-required.js';
import { declaredCapabilities } from './modern-caller.js';
import { missingCapability } from './relay-to-client.js';

export type PassedMethod = 'tools/call' | 'prompts/get';

/**
 * One round: `send` sends the request to the upstream with this round's answers and the
 * upstream's own requestState (none on a first call); its `input_required` is handed to the
 * client with our requestState in place of the upstream's.
 */
export async function passThroughRound<R>(
  codec: RequestStateCodec<ResumeState>,
  method: PassedMethod,
  name: string,
  ctx: ServerContext,
  send: (round: UpstreamRound) => Promise<R | UpstreamInputRequired>,
): Promise<R | InputRequiredResult> {
  const resumed = ctx.mcpReq.requestState<ResumeState>();
  if (resumed !== undefined && (!('pass' in resumed) || resumed.pass !== method || resumed.name !== name)) {
    throw foreignState(resumed);
  }
  const capabilities = declaredCapabilities(ctx) ?? {};
  const { inputResponses } = ctx.mcpReq;
  const answer = await send({
    capabilities,
    ...(inputResponses !== undefined ? { inputResponses } : {}),
    ...(resumed?.upstream !== undefined ? { requestState: resumed.upstream } : {}),
  });
  if (!isUpstreamInputRequired(answer)) return answer;
  refuseUnanswerable(answer.inputRequests, capabilities, method, name);
  const state: ResumeState = {
    pass: method,
    name,
    ...(answer.requestState !== undefined ? { upstream: answer.requestState } : {}),
  };
  return inputRequired({ inputRequests: answer.inputRequests, requestState: await codec.mint(state, ctx) });
}

/**
 * An upstream asked for what the client did not declare it can answer (it was told what the
 * client declared, so it should not have): the client gets the protocol's error for it (-32021,
 * naming the capability), not a request it can't answer.
 */
function refuseUnanswerable(requests: InputRequests, capabilities: ClientCapabilities, method: PassedMethod, name: string): void {
  const required: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const [key, request] of Object.entries(requests)) {
    const lacking = missingCapability(capabilities, request);
    if (lacking === undefined) continue;
    missing.push(`"${key}" (${request.method}) needs ${lacking}`);
    Object.assign(required, capabilityFor(request));
  }
  if (missing.length === 0) return;
  throw new MissingRequiredClientCapabilityError(
    { requiredCapabilities: required },
    `${method === 'tools/call' ? `tool ${name}` : `prompt ${name}`} asks for input the client did not declare it can give: ${missing.join('; ')}; declare it in the request's client capabilities`,
  );
}

/** The client capability an input request needs, as MissingRequiredClientCapabilityError names it. */
function capabilityFor(request: InputRequest): ClientCapabilities {
  switch (request.method) {
    case 'elicitation/create':
      return { elicitation: request.params.mode === 'url' ? { url: {} } : { form: {} } };
    case 'sampling/createMessage':
      return { sampling: request.params.tools !== undefined ? { tools: {} } : {} };
    default:
      return { roots: {} };
  }
}
