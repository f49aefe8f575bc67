/**
 * A connection's transport with its client's tokens at the edge (settings.tokenize, issue 48):
 * the one outbound boundary. Every message the server sends (an answer, a notification, a request
 * relayed from an upstream, an error) is tokenized (outbound-messages.ts) before the transport
 * underneath sees it, in the order it was sent; a tools/call the client sends is read for tokens
 * this scope does not know, and its answer carries one line saying so (unknown-tokens.ts).
 * Wrapped where the surface's Server connects (traced-server.ts), so stdio, a 2025 session and a
 * 2026-07-28 request over HTTP all pass here.
 */
import {
  ProtocolErrorCode,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { ScopeTokens } from '../../tokenize/tokenizer.js';
import { describeUnknownTokens } from '../../tokenize/unknown-tokens.js';
import { CODE_EXECUTION_TOOL } from '../code-execution/tool.js';
import { tokenizeOutbound, type AnsweredRequest } from './outbound-messages.js';

interface Answering {
  readonly request: AnsweredRequest;
  /** The tokens in a tools/call's arguments that this scope has no value for. */
  readonly unknown: Promise<readonly string[]>;
}

const NONE: Promise<readonly string[]> = Promise.resolve([]);

export class TokenizingTransport implements Transport {
  /** The client's requests not yet answered: what their answers are tokenized as. */
  private readonly answering = new Map<RequestId, Answering>();
  /** The last message's tokenizing: the next waits for it, so messages leave in the order sent. */
  private last: Promise<unknown> = Promise.resolve();
  private received: Transport['onmessage'];

  constructor(
    private readonly inner: Transport,
    private readonly tokens: ScopeTokens,
  ) {}

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const tokenized = this.last.then(() => this.outbound(message));
    // The caller of send() gets this message's failure; the next message goes on regardless.
    this.last = tokenized.catch(() => undefined);
    return tokenized.then((out) => this.inner.send(out, options));
  }

  get onmessage(): Transport['onmessage'] {
    return this.received;
  }

  set onmessage(handler: Transport['onmessage']) {
    this.received = handler;
    this.inner.onmessage =
      handler === undefined
        ? undefined
        : <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => {
            this.note(message);
            handler(message, extra);
          };
  }

  get onclose(): Transport['onclose'] {
    return this.inner.onclose;
  }

  set onclose(handler: Transport['onclose']) {
    this.inner.onclose = handler;
  }

  get onerror(): Transport['onerror'] {
    return this.inner.onerror;
  }

  set onerror(handler: Transport['onerror']) {
    this.inner.onerror = handler;
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  get setProtocolVersion(): Transport['setProtocolVersion'] {
    return this.inner.setProtocolVersion?.bind(this.inner);
  }

  get setSupportedProtocolVersions(): Transport['setSupportedProtocolVersions'] {
    return this.inner.setSupportedProtocolVersions?.bind(this.inner);
  }

  /** A request of the client's: what its answer is; a cancelled one will get none. */
  private note(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    if (!('id' in message)) {
      if (message.method === 'notifications/cancelled') this.answering.delete(message.params?.requestId as RequestId);
      return;
    }
    const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
    const tool = message.method === 'tools/call' && typeof params?.name === 'string' ? params.name : undefined;
    const unknown =
      tool === undefined || params?.arguments === undefined
        ? NONE
        : this.tokens.restoreValue(params.arguments).then((restored) => restored.unknown);
    // Read when the answer goes out: a failure there sends an error in place of the answer.
    unknown.catch(() => undefined);
    this.answering.set(message.id, { request: { method: message.method, ...(tool !== undefined ? { tool } : {}) }, unknown });
  }

  private async outbound(message: JSONRPCMessage): Promise<JSONRPCMessage> {
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    const answering = id === undefined ? undefined : this.answering.get(id);
    if (id !== undefined) this.answering.delete(id);
    try {
      const out = await tokenizeOutbound(message, answering?.request, this.tokens);
      return answering === undefined ? out : withUnknownTokens(out, answering, await answering.unknown);
    } catch (error) {
      if (id === undefined) throw error;
      // Nothing of an answer that could not be tokenized is sent; the reason names no value.
      return {
        jsonrpc: '2.0',
        id,
        error: {
          code: ProtocolErrorCode.InternalError,
          message: `codemode-mcp could not tokenize this answer (${error instanceof Error ? error.name : 'error'}), so none of it was sent`,
        },
      };
    }
  }
}

/** A tool's answer with the line on the tokens its arguments held that were passed on as written. */
function withUnknownTokens(message: JSONRPCMessage, { request }: Answering, unknown: readonly string[]): JSONRPCMessage {
  const line = describeUnknownTokens(unknown);
  if (line === null || !('result' in message)) return message;
  const result = message.result as { content?: unknown; structuredContent?: unknown };
  if (!Array.isArray(result.content)) return message;
  const content = [...(result.content as Array<{ type?: unknown; text?: unknown }>)];
  const first = content.findIndex((block) => block.type === 'text' && typeof block.text === 'string');
  if (first === -1) content.push({ type: 'text', text: line });
  else content[first] = { ...content[first], text: `${content[first]!.text as string}\n${line}` };
  // code_execution's structuredContent is ours to add to; an exposed tool's follows its outputSchema.
  const structured =
    request.tool === CODE_EXECUTION_TOOL && result.structuredContent !== null && typeof result.structuredContent === 'object'
      ? { structuredContent: { ...result.structuredContent, tokensNotRestored: [...unknown] } }
      : {};
  return { ...message, result: { ...result, content, ...structured } };
}
