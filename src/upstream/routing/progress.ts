/**
 * Routes an upstream's `notifications/progress` for our calls to the call's listener. The SDK
 * dispatches notifications a microtask late, so progress that arrives in the same read as the
 * call's response reached no one: its handler was already gone. This reads them first, in order.
 */
import type { JSONRPCMessage, Progress, Transport } from '@modelcontextprotocol/client';

export class ProgressRouter {
  private nextToken = 0;
  private readonly listeners = new Map<string, (progress: Progress) => void>();

  /** Call after the client connected: it owns `onmessage` from then on, and we read before it. */
  attach(transport: Transport): void {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!this.route(message)) deliver?.(message, extra);
    };
  }

  /** A fresh progress token for one call, and how to stop listening when the call ends. */
  register(listener: (progress: Progress) => void): { token: string; release: () => void } {
    const token = `codemode-progress-${++this.nextToken}`;
    this.listeners.set(token, listener);
    return { token, release: () => this.listeners.delete(token) };
  }

  private route(message: JSONRPCMessage): boolean {
    if (!('method' in message) || message.method !== 'notifications/progress' || 'id' in message) return false;
    const { progressToken, ...progress } = (message.params ?? {}) as { progressToken?: unknown } & Progress;
    const listener = typeof progressToken === 'string' ? this.listeners.get(progressToken) : undefined;
    if (listener === undefined) return false;
    listener(progress);
    return true;
  }
}
