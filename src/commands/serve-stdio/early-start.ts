/**
 * Over stdio, the stdio upstreams and the pool's children are spawned before the server's own
 * modules are evaluated: evaluating the MCP SDK and the rest is a good part of a start-up
 * (bench/ANALYSIS.md; the bundle is compiled by then, src/boot/load-server.ts), which a spawned
 * upstream and a pooled child spend starting on the other core. The client's
 * `initialize` is almost always in the pipe by the time Node has started, so the first line can be
 * read (and put back) without waiting: only when it is an `initialize` request does anything start.
 * A line that is anything else (an SDK 2.x client's throwaway copy asking `server/discover`, a
 * request before `initialize`) spawns nothing, and the server starts them when `initialize`
 * comes, as it did before (request-gate.ts).
 *
 * What is spawned here is handed over, not started again: a stdio upstream's transport adopts the
 * process spawned for its name and command (upstream-process.ts), the pool adopts the children
 * (script-process.ts). Light on purpose: no module here loads the SDK.
 */
import type { Readable } from 'node:stream';
import type { CliInvocation } from '../../cli/parse-cli.js';
import {
  discardEarlyScriptProcesses,
  offerEarlyScriptProcess,
  scriptProcessOptions,
  spawnScriptProcess,
} from '../../script-host/script-process.js';
import { Logger } from '../../support/log.js';
import { settleWithin } from '../../support/settle.js';
import { upstreamEnvironment } from '../../upstream/transport/environment.js';
import { discardEarlyUpstreams, offerEarlyUpstream, spawnUpstreamProcess } from '../../upstream/transport/upstream-process.js';
import { deferred } from '../../support/deferred.js';
import { LiveGroups } from '../../support/process-group.js';

/** 64 KiB: a first line longer than this is not read for `initialize`; the server starts things when it has loaded. */
const FIRST_LINE_MAX_BYTES = 64 * 1024;

/**
 * 1: the pooled children spawned early, the one the first run takes; the pool starts the rest
 * once the server has started (src/scripts/child-supply.ts). More would take the cores the
 * server's own loading needs (bench/ANALYSIS.md).
 */
const EARLY_POOL_CHILDREN = 1;

/**
 * 50 ms: how long the server waits for the client's first line before it evaluates the rest of its
 * modules. In the one bundle nothing else is read while they are evaluated (an import() of a
 * bundled module is not I/O), so without the wait the first look at stdin came after the SDK's
 * evaluation; a client writes `initialize` as it spawns the server, so the line is
 * almost always there at once, and a client that writes nothing costs its start at most this.
 */
const FIRST_LOOK_MAX_MS = 50;

export interface EarlyStart {
  /** Resolves once stdin's first bytes (or its end) have been looked at, or FIRST_LOOK_MAX_MS after the call. */
  firstLook(): Promise<void>;
  /** Stops looking at stdin: the transport reads it from here on. Call before the transport starts. */
  stopWatching(): void;
  /** Ends what was spawned here and not adopted: for a shutdown that comes before the server started them. */
  discard(): void;
  /**
   * The process groups of the upstreams spawned here, until they have ended: the server's hub keeps
   * its own here too, so that its shutdown's sweep ends them whether a transport adopted them or not.
   */
  readonly processGroups: LiveGroups;
}

export function startEarly(invocation: CliInvocation, stdin: Readable = process.stdin): EarlyStart {
  const processGroups = new LiveGroups();
  let watching = true;
  const looked = deferred();
  const stopWatching = (): void => {
    if (!watching) return;
    watching = false;
    stdin.off('readable', onReadable);
    looked.resolve();
  };
  function onReadable(): void {
    looked.resolve();
    const chunk = stdin.read() as Buffer | null;
    if (chunk === null) return;
    stopWatching();
    // Put back, for the transport to read as if nobody had looked.
    stdin.unshift(chunk);
    if (opensWithInitialize(chunk)) spawnAhead(invocation, processGroups);
  }
  stdin.on('readable', onReadable);
  return {
    firstLook: async () => {
      if ((await settleWithin(looked.promise, { ms: FIRST_LOOK_MAX_MS, ref: true })) !== 'timeout') return;
      // A loaded machine can run the timer before the read of bytes already in the pipe (timers come
      // first in a turn of the loop); the turn's poll for I/O, before its immediates, still reads them.
      await new Promise((resolve) => setImmediate(resolve));
    },
    stopWatching,
    discard: () => {
      discardEarlyUpstreams();
      discardEarlyScriptProcesses();
    },
    processGroups,
  };
}

/** Whether the bytes begin with a whole line that is a JSON-RPC `initialize` request. */
export function opensWithInitialize(bytes: Buffer): boolean {
  const end = bytes.indexOf(0x0a);
  if (end === -1 || end > FIRST_LINE_MAX_BYTES) return false;
  let message: unknown;
  try {
    message = JSON.parse(bytes.subarray(0, end).toString('utf8'));
  } catch {
    return false;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const { jsonrpc, method, id } = message as Record<string, unknown>;
  return jsonrpc === '2.0' && method === 'initialize' && (typeof id === 'string' || typeof id === 'number');
}

function spawnAhead({ upstreams, settings }: CliInvocation, processGroups: LiveGroups): void {
  let spawned = 0;
  for (const spec of upstreams) {
    if (spec.transport !== 'stdio') continue;
    const command = {
      command: spec.command,
      args: spec.args,
      env: upstreamEnvironment(spec.env),
      ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    };
    offerEarlyUpstream(spec.name, command, spawnUpstreamProcess(spec.name, command, processGroups));
    spawned++;
  }
  const children = Math.min(settings.pool, EARLY_POOL_CHILDREN);
  const options = scriptProcessOptions(settings, true);
  for (let child = 0; child < children; child++) offerEarlyScriptProcess(options, spawnScriptProcess(options));
  Logger.of().debug(
    `the client's first message is initialize: ${spawned} stdio upstream${spawned === 1 ? '' : 's'} and ` +
      `${children} pooled script child${children === 1 ? '' : 'ren'} started before the server's modules are evaluated`,
  );
}
