/**
 * A 2026-07-28 caller as the upstreams reach it: an upstream's request during one of its scripts'
 * calls waits in an InputQueue for the next answer to go out as `input_required`, and its logs go
 * out on the call watching a script, since such a client holds no stream of its own to us. Each
 * request states the client's capabilities (`_meta`), and the last one seen decides what may be asked.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ClientCapabilities,
  type LoggingMessageNotification,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallOrigin } from '../upstream/routing/call-origins.js';
import { logFailure } from '../support/log.js';
import { InputQueue } from './input-queue.js';
import { missingCapability, requiredCapability } from './relay-to-client.js';

export class InputRequiredCaller {
  readonly inputs = new InputQueue();
  readonly origin: CallOrigin;
  private capabilities: ClientCapabilities | undefined;
  /** The calls now watching a script, latest last: a log goes out on the latest. */
  private readonly watchers: ServerContext[] = [];

  constructor(label: string) {
    this.origin = {
      label,
      relay: (upstream, request, { signal, script, candidates = [] }) => {
        const asking = script ?? this.likelyAsker(candidates);
        const missing = missingCapability(this.capabilities, request);
        if (missing !== undefined) {
          const because = `the MCP client did not declare ${missing}`;
          this.inputs.refuse({
            script: asking,
            error: new MissingRequiredClientCapabilityError(
              { requiredCapabilities: requiredCapability(request) },
              `upstream "${upstream}" asked for ${request.method}, and ${because}; declare it in the request's client capabilities`,
            ),
          });
          throw new ProtocolError(
            ProtocolErrorCode.MethodNotFound,
            `codemode-mcp cannot relay ${request.method} from upstream "${upstream}": ${because}`,
          );
        }
        return this.inputs.ask(upstream, request, signal, asking ?? candidates);
      },
      accepts: (request) => missingCapability(this.capabilities, request) === undefined,
      log: (upstream, params) =>
        this.sendLog({ ...params, logger: params.logger === undefined ? upstream : `${upstream}/${params.logger}` }),
    };
  }

  /**
   * Which of the calls out on the upstream a request that names none is for: the only one, or the
   * only one not already waiting on a question of its own (a 2025 tool awaits its request, so a
   * call left waiting, as an unanswered `input_required` leaves it, is not the one asking anew);
   * undefined when that leaves several or none.
   */
  private likelyAsker(candidates: readonly string[]): string | undefined {
    if (candidates.length === 1) return candidates[0];
    const free = candidates.filter((candidate) => !this.inputs.waitsFor(candidate));
    return free.length === 1 ? free[0] : undefined;
  }

  /** Runs `call` as a call of this caller: its capabilities are the ones now declared, and logs may go out on it. */
  async during<T>(ctx: ServerContext, call: () => Promise<T>): Promise<T> {
    const declared = declaredCapabilities(ctx);
    if (declared !== undefined) this.capabilities = declared;
    this.watchers.push(ctx);
    try {
      return await call();
    } finally {
      this.watchers.splice(this.watchers.indexOf(ctx), 1);
    }
  }

  /**
   * A logging notification on the latest call watching; with none open, there is nothing to carry
   * it. Sent through the request's own `log`, which in 2026-07-28 sends only when that request
   * asked for logs (`_meta` logLevel) and at or above its level.
   */
  sendLog(params: LoggingMessageNotification['params']): void {
    const ctx = this.watchers.at(-1);
    if (ctx === undefined || ctx.mcpReq.signal.aborted) return;
    ctx.mcpReq.log(params.level, params.data, params.logger).catch(logFailure('a log message to the client'));
  }
}

/** The client capabilities a 2026-07-28 request declares (its `_meta` envelope); undefined when it declares none. */
export function declaredCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  return (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? ctx.mcpReq._meta?.[CLIENT_CAPABILITIES_META_KEY]) as
    ClientCapabilities | undefined;
}
