/**
 * An upstream's request (elicitation, sampling, roots) on its way to a 2026-07-28 client, which
 * takes no server-to-client requests: it waits here until a call watching one of the owner's
 * scripts answers with `input_required` carrying it, and the client's retry brings the answer.
 */
import { randomBytes } from 'node:crypto';
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type InputRequests,
} from '@modelcontextprotocol/server';
import type { RelayedRequest, RelayedResult } from '../upstream/routing/relay.js';

/** A request of an upstream the client could not be asked: whose call it was for (when known), and what was missing. */
export interface Refusal {
  readonly script: string | undefined;
  readonly error: MissingRequiredClientCapabilityError;
}

interface Pending {
  readonly upstream: string;
  /**
   * Whose call the request is for: a script's id or an exposed call's key, when known; else the
   * callers with calls out on the upstream when it came, one of which it is for (none known: anyone's).
   */
  readonly asker: string | readonly string[];
  readonly request: RelayedRequest;
  readonly resolve: (result: RelayedResult) => void;
  readonly reject: (reason: unknown) => void;
}

export class InputQueue {
  private readonly pending = new Map<string, Pending>();
  private readonly listeners = new Set<(concerns: (asker: string | undefined) => boolean) => void>();
  private readonly refusalListeners = new Set<(refusal: Refusal) => void>();

  /**
   * Asks the client: resolves with its answer, or rejects when `signal` aborts (the upstream
   * cancelled). `asker`: whose call it is for, or the callers it may be for (see Pending).
   */
  ask(
    upstream: string,
    request: RelayedRequest,
    signal: AbortSignal,
    asker: string | readonly string[] = [],
  ): Promise<RelayedResult> {
    signal.throwIfAborted();
    // Unguessable: a key is all a tasks/update names, and a task's answers reach only its own requests (answer).
    const key = `input-${randomBytes(12).toString('base64url')}`;
    return new Promise<RelayedResult>((resolve, reject) => {
      const onAbort = (): void => {
        this.pending.delete(key);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const pending: Pending = {
        upstream,
        asker,
        request,
        resolve: (result) => {
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        },
        reject: (reason) => {
          signal.removeEventListener('abort', onAbort);
          reject(reason);
        },
      };
      this.pending.set(key, pending);
      for (const listener of [...this.listeners]) listener((of) => concerns(pending, of));
    });
  }

  /**
   * What is waiting for the client on behalf of `script` (and what is known to be for no script
   * in particular), keyed as `input_required` carries it; undefined `script`: all of it.
   */
  requests(script?: string): InputRequests {
    const requests: InputRequests = {};
    for (const [key, pending] of this.pending) {
      if (concerns(pending, script)) requests[key] = pending.request;
    }
    return requests;
  }

  /** Whether anything waits that concerns `script` (see requests). */
  asksFor(script: string | undefined): boolean {
    return [...this.pending.values()].some((pending) => concerns(pending, script));
  }

  /** Whether a request known to be `asker`'s own waits for the client. */
  waitsFor(asker: string): boolean {
    return [...this.pending.values()].some((pending) => pending.asker === asker);
  }

  /** Whether every key is still waiting: a retry that names an answered one is a replay. */
  waiting(keys: readonly string[]): boolean {
    return keys.every((key) => this.pending.has(key));
  }

  /**
   * The client's answers to what `keys` asked on behalf of `asker` (a script's id, or an exposed
   * call's key): each goes to its upstream. A key asked for another script or call is left as it
   * is: one task's answer can't decide another's question. An answer missing or of the wrong shape
   * is the upstream's to judge, as over the 2025 revision, so it is passed as given.
   */
  answer(keys: readonly string[], responses: Readonly<Record<string, unknown>>, asker: string): void {
    for (const key of keys) {
      const pending = this.pending.get(key);
      if (pending === undefined || !concerns(pending, asker)) continue;
      this.pending.delete(key);
      const response = responses[key];
      if (response === undefined) {
        pending.reject(
          new ProtocolError(
            ProtocolErrorCode.InvalidRequest,
            `the MCP client retried without an answer to ${pending.request.method} (inputResponses["${key}"])`,
          ),
        );
      } else pending.resolve(response as RelayedResult);
    }
  }

  /** Calls `listener` each time a request starts waiting, with whom it may concern (see requests); returns the unsubscribe. */
  onAsked(listener: (concerns: (asker: string | undefined) => boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A request the client could not be asked (it did not declare the capability): the upstream is
   * refused, and the call it was for, when known, may answer the client with the protocol's error.
   */
  refuse(refusal: Refusal): void {
    for (const listener of [...this.refusalListeners]) listener(refusal);
  }

  /** Calls `listener` at each refusal; returns the unsubscribe. */
  onRefused(listener: (refusal: Refusal) => void): () => void {
    this.refusalListeners.add(listener);
    return () => this.refusalListeners.delete(listener);
  }

  /** Every request still waiting fails with `reason` (the owner is going away). */
  failAll(reason: string): void {
    for (const pending of this.pending.values()) pending.reject(new ProtocolError(ProtocolErrorCode.InternalError, reason));
    this.pending.clear();
  }
}

/**
 * Whether a request may be `script`'s: its own, or one that names no caller but came while
 * `script` had a call out on that upstream (or while no call of ours was known to be out).
 * Undefined `script`: every request.
 */
function concerns(pending: Pending, script: string | undefined): boolean {
  if (script === undefined) return true;
  if (typeof pending.asker === 'string') return pending.asker === script;
  return pending.asker.length === 0 || pending.asker.includes(script);
}
