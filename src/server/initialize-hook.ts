/**
 * A transport that says when the client sends `initialize`. The server starts its upstreams then,
 * not at process start: an SDK v2 client in `versionNegotiation: 'auto'` mode first spawns a
 * throwaway copy of the server to ask `server/discover`, and kills it a second later; that copy
 * should not spawn every upstream (an `npx -y` download, a rate-limited API) only to be killed.
 */
import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/server';

export class InitializeHook implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;
  private initialized = false;

  constructor(
    private readonly inner: Transport,
    private readonly onInitialize: () => void,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if (!this.initialized && 'method' in message && message.method === 'initialize' && 'id' in message) {
        this.initialized = true;
        this.onInitialize();
      }
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }
}
