/**
 * Between the client's transport and the SDK's Server: every request gets exactly one answer.
 * A line the transport could not hand on (too large, not JSON, not JSON-RPC) is answered here
 * when it has an id, and logged; a request is checked against its method's schema and against
 * the lifecycle (nothing but `ping` before `initialize`; `initialize` once) before the Server
 * sees it. The first `initialize` it lets through starts the upstreams and the pool
 * (`onInitialize`; over stdio, early-start.ts may have spawned some already, on seeing that the
 * first line is `initialize`), not process start: an SDK 2.x client in `versionNegotiation: 'auto'` mode
 * first spawns a throwaway copy of the server to ask `server/discover`, and kills it a second
 * later; that copy should not spawn every upstream only to be killed.
 *
 * A message of the 2026-07-28 revision (its `_meta` names the protocol version it speaks) has no
 * lifecycle to check and is checked by the SDK's own per-request envelope rules: it passes as it
 * came, and the first such request other than `server/discover` or `ping` starts the upstreams as
 * `initialize` does.
 */
import {
  ProtocolErrorCode,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/server';
import { groupThousands } from '../../common/format-numbers.js';
import { requestLabel, showId } from '../support/echo.js';
import { SETTINGS, formatSettingValue } from '../config/settings.js';
import type { Rejection } from '../json-rpc/parse-line.js';
import { checkNotification, checkRequest, type Refusal } from './method-schema-check.js';
import { Logger, type Log } from '../support/log.js';
import { carriesRequestEnvelope } from './request-envelope.js';

export interface RequestGateOptions {
  /** Whether the Server has a handler for this request method. */
  readonly serves: (method: string) => boolean;
  /** Runs once, when the first valid `initialize` or the first 2026-07-28 request goes through. */
  readonly onInitialize: () => void;
  /** Runs once the client's connection has closed, after whoever serves it has been told. */
  readonly onClosed?: () => void;
  /** The transport's limit, for the message that refuses a larger request. */
  readonly maxMessageBytes: number;
  /** Our stderr, a line at a time. */
  readonly log: Log;
}

/**
 * The transport the gate stands in front of: the SDK's Transport, which also hands on each line it
 * could not read as a message (src/stdio/ implements it).
 */
export interface RejectingTransport extends Transport {
  onrejected?: ((rejection: Rejection) => void) | undefined;
}

/** Requests a client may send before `initialize` (MCP lifecycle: "other than pings"). */
const BEFORE_INITIALIZE: ReadonlySet<string> = new Set(['initialize', 'ping']);

export class RequestGate implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;
  private initialized = false;
  /** Each line is a client's fault the server answered or dropped, and read on after: at warn. */
  private readonly log: Logger;
  private opened = false;

  constructor(
    private readonly inner: RejectingTransport,
    private readonly options: RequestGateOptions,
  ) {
    this.log = Logger.of(options.log);
    inner.onclose = () => {
      this.onclose?.();
      this.options.onClosed?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message) => this.receive(message);
    inner.onrejected = (rejection) => this.rejected(rejection);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private receive(message: JSONRPCMessage): void {
    if ('method' in message && carriesRequestEnvelope(message.params)) {
      // A probe (`server/discover`, an SDK client's throwaway copy may send nothing else) starts nothing.
      if ('id' in message && message.method !== 'server/discover' && message.method !== 'ping') this.open();
      this.onmessage?.(message);
      return;
    }
    if ('method' in message && 'id' in message) {
      const refusal = checkRequest(message, this.options.serves) ?? this.lifecycleRefusal(message.method);
      if (refusal !== undefined) {
        this.answer(message.id, refusal, requestLabel(message.id, message.method));
        return;
      }
      if (message.method === 'initialize') {
        this.initialized = true;
        this.open();
      }
    } else if ('method' in message) {
      const problem = checkNotification(message);
      if (problem !== undefined) {
        this.log.warn(`dropped a notification ${message.method} that does not hold: ${problem}`);
        return;
      }
      if (!this.initialized) {
        this.log.warn(`dropped a notification ${message.method} that came before initialize`);
        return;
      }
    }
    this.onmessage?.(message);
  }

  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.options.onInitialize();
  }

  private lifecycleRefusal(method: string): Refusal | undefined {
    if (method === 'initialize' && this.initialized) {
      return {
        code: ProtocolErrorCode.InvalidRequest,
        message:
          'Invalid Request: this connection is already initialized; initialize comes once, as the first request of a connection',
      };
    }
    if (!this.initialized && !BEFORE_INITIALIZE.has(method)) {
      return {
        code: ProtocolErrorCode.InvalidRequest,
        message: `Invalid Request: ${method} came before initialize; send initialize first (only ping may come before it)`,
      };
    }
    return undefined;
  }

  private rejected(rejection: Rejection): void {
    switch (rejection.kind) {
      case 'oversize':
        this.oversize(rejection);
        return;
      case 'not-json': {
        const message = `Parse error: a line is not JSON (${rejection.problem}); each line must be one JSON-RPC message`;
        this.answer(undefined, { code: ProtocolErrorCode.ParseError, message }, 'a line');
        return;
      }
      case 'not-json-rpc': {
        const { id, role, value, problem } = rejection;
        const invalid: Refusal = { code: ProtocolErrorCode.InvalidRequest, message: `Invalid Request: ${problem}` };
        if (role === 'request') {
          // The method's own check says more (-32601, or the field at fault) than the envelope's.
          const request = value as Record<string, unknown>;
          this.answer(id, checkRequest(request, this.options.serves) ?? invalid, requestLabel(id, request.method));
        } else if (role === 'notification') this.log.warn(`dropped a notification that does not hold: ${problem}`);
        else if (role === 'response' && id !== undefined) {
          this.failOwnRequest(id, `the client answered with something that is not a JSON-RPC response: ${problem}`);
        } else this.answer(id, invalid, 'a message');
        return;
      }
    }
  }

  private oversize({ bytes, id, role }: Extract<Rejection, { kind: 'oversize' }>): void {
    const limit = formatSettingValue(SETTINGS.maxMessageBytes, this.options.maxMessageBytes);
    const size = `${groupThousands(bytes)} bytes, over the server's limit of ${limit} (maxMessageBytes)`;
    if (role === 'response' && id !== undefined) {
      this.failOwnRequest(id, `the client's answer was ${size}`);
    } else if (id !== undefined && role !== 'notification') {
      this.answer(
        id,
        {
          code: ProtocolErrorCode.InvalidRequest,
          message:
            `Request too large: ${size}. Send less (a script can fetch large inputs through a tool instead), or start the server ` +
            `with a higher --${SETTINGS.maxMessageBytes.flag} (or settings.maxMessageBytes in its config file)`,
        },
        requestLabel(id, undefined),
      );
    } else this.log.warn(`dropped a message of ${size}: it has no id to answer`);
  }

  /**
   * Sends a JSON-RPC error and logs it. Without a readable id the error carries none: MCP's
   * schema makes an error's id optional for this case, where JSON-RPC 2.0 would say `id: null`,
   * which the MCP SDKs' clients reject as malformed.
   */
  private answer(id: RequestId | undefined, refusal: Refusal, what: string): void {
    this.log.warn(`answered ${what} with error ${refusal.code}: ${refusal.message}`);
    const response: JSONRPCErrorResponse = { jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error: refusal };
    this.inner.send(response).catch((error: unknown) => this.log.warn(`could not send an error to the client: ${String(error)}`));
  }

  /** A response the client sent to one of our requests, that can't be read: that request fails now. */
  private failOwnRequest(id: RequestId, why: string): void {
    this.log.warn(`${why} (to our request ${showId(id)})`);
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InvalidRequest, message: why } });
  }
}
