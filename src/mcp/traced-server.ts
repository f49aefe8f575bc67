/**
 * The SDK's `Server`, each request it handles in a server span (telemetry): `resources/read`,
 * `prompts/get summary`, `tools/list`, `initialize`, ... through the SDK's hook for wrapping
 * handlers, so a handler registered anywhere (a session's own, the Tasks extension's) is traced.
 */
import { Server, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server';
import { traceServerRequest } from '../telemetry/trace-server-request.js';

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

export class TracedServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const wrapped = super._wrapHandler(method, handler);
    // Its handler opens its own span, whose context the script or the call it starts is given (server-surface.ts).
    if (method === 'tools/call') return wrapped;
    return (request, ctx) =>
      traceServerRequest(method, request.params, () => wrapped(request, ctx), {
        requestId: ctx.mcpReq.id,
        ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
      });
  }
}
