/**
 * The guest API, installed inside QuickJS before any script: built once into a snapshot at
 * build time (engine/build-snapshot.ts). The engine calls `install` with its host functions;
 * they stay in these closures and never reach a global.
 */
import { Calls } from './calls';
import { formatError, installErrorClasses } from './errors';
import type { Entry, Host, Limits } from './host';
import { installConsole } from './console';
import { inspect } from './inspect';
import { installNotify } from './notify';
import { Random } from './random';
import { ScriptState } from './script-state';
import { Timers } from './timers';
import { installTools } from './tools';
import { jsonStringify } from './intrinsics';

export function install(host: Host, limits: Limits): Entry {
  const global = globalThis as unknown as Record<string, unknown>;
  const format = (error: unknown) => formatError(error, limits);
  const reportUncaught = (error: unknown) => host.out(`Uncaught ${inspect(error, format)}\n`);

  const calls = new Calls(host, limits);
  const timers = new Timers(host, reportUncaught);
  const state = new ScriptState(calls, timers, limits, format);
  const random = new Random();

  installErrorClasses(global);
  installConsole(global, host, format);
  installNotify(global, host, limits);
  timers.install(global);
  random.install();

  return {
    start(body, toolsJson, seed, unlisted) {
      random.seed(seed);
      installTools(global, toolsJson, unlisted, calls);
      state.run(body);
    },
    deliver: (id, kind, payload) => calls.deliver(id, kind, payload),
    fire: (timerId) => timers.fire(timerId),
    status: () => state.status(),
    unsent: () => jsonStringify(calls.unsent()),
    ending: (stalled) => state.ending(stalled),
    format: (value) => inspect(value, format),
  };
}
