/**
 * Progress notifications to the client on its call, when the call carries a progress token: an
 * upstream's own progress passed on, or a watch's messages counted.
 */
import type { Progress, ServerContext } from '@modelcontextprotocol/server';
import { logFailure, type Log } from '../support/log.js';

/** When the client's call carries a progress token: an upstream's progress passed on under it. */
export function progressOf(ctx: ServerContext, log: Log): ((progress: Progress) => void) | undefined {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  return (progress) =>
    void ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { ...progress, progressToken } })
      .catch(logFailure('a progress notification to the client', log));
}

/**
 * When the client's call carries a progress token: a sender of `notifications/progress` for it,
 * `progress` counting the messages so it only ever increases, as MCP requires. Each send returns
 * a promise of the notification written (never rejecting), for the answer to wait on.
 */
export function progressSender(ctx: ServerContext): ((message: string) => Promise<void>) | undefined {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let progress = 0;
  return (message) => {
    if (ctx.mcpReq.signal.aborted) return Promise.resolve();
    progress += 1;
    return ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken, progress, message } })
      .catch(logFailure('a progress notification to the client'));
  };
}
