/**
 * The guest API, installed inside QuickJS before any script: built once into a snapshot at build
 * time (engine/build-snapshot.ts). The engine calls `install` with its host functions and the
 * limits; they stay in the prelude's modules and reach no global. The entry it returns is the
 * engine's handle on the script (see ENTRY_METHODS in common/seam.ts).
 */
import type { Delivery, EntryMethods } from '../common/seam.js';
import { Calls } from './calls.js';
import { describeThrown, installErrorClasses } from './errors.js';
import { host, limits, takeHost } from './host.js';
import { installConsole } from './console.js';
import { installFetch } from './fetch.js';
import { inspect } from './inspect.js';
import { ErrorConstructor, JSONStringify, ObjectFreeze, ObjectSetPrototypeOf, newError } from './intrinsics.js';
import { installNotify } from './notify.js';
import { installResources } from './resources.js';
import { installShow } from './show.js';
import { installSkills } from './skills.js';
import { installState } from './state.js';
import { Random } from './random.js';
import { lockStackTraces } from './stack-traces.js';
import { Timers } from './timers.js';
import { installTools, prepareTools, type PreparedTools } from './tools.js';

export function install(givenHost: Record<string, unknown>, givenLimits: Record<string, unknown>): EntryMethods {
  takeHost(givenHost, givenLimits);
  lockStackTraces();
  const calls = new Calls();
  const timers = new Timers((error) => host.out(`Uncaught ${inspect(error)}\n`));
  const random = new Random();
  installErrorClasses();
  installConsole();
  installNotify();
  installShow();
  installResources(calls);
  installState(calls);
  installSkills(calls);
  installFetch(calls);
  timers.install();
  random.install();

  let prepared: PreparedTools | undefined;
  const entry = {
    catalog: (toolsJson: string): void => {
      prepared = prepareTools(toolsJson, calls);
    },
    start: (unlistedJson: string, a: number, b: number, c: number, d: number): void => {
      random.seed(a, b, c, d);
      // The engine gives a catalog before every start (ScriptRun.start); none is a bug, not an empty catalog.
      if (prepared === undefined) throw newError(ErrorConstructor, 'codemode: start without a catalog');
      installTools(prepared, unlistedJson, calls);
    },
    deliver: (id: number, kind: Delivery, payload: string): void => calls.deliver(id, kind, payload),
    fire: (timerId: number): void => timers.fire(timerId),
    busy: (): number => (calls.busy || timers.pending > 0 ? 1 : 0),
    unsent: (): string => calls.unsentJson(),
    valueJson: (value: unknown): string => valueJson(value),
    format: (value: unknown): string => inspect(value),
  } satisfies EntryMethods;
  // Inherits nothing: the engine reads its methods by name, and no prototype a script reaches is among them.
  ObjectSetPrototypeOf(entry, null);
  return ObjectFreeze(entry);
}

/**
 * The value as JSON, once ('' when the script returned nothing); a value JSON can't hold comes
 * back as a JSON string that says so. JSON.stringify runs the script's own toJSON and getters.
 */
function valueJson(value: unknown): string {
  if (value === undefined) return '';
  let json: unknown;
  try {
    json = JSONStringify(value);
  } catch (error) {
    return JSONStringify(`[the value can't become JSON: ${describeThrown(error)}]`);
  }
  if (typeof json !== 'string')
    return JSONStringify(
      `[the value can't become JSON: ${json === undefined ? `it is a ${typeof value}` : 'its toJSON gave something that is not JSON'}]`,
    );
  if (json.length > limits.valueMaxChars) {
    return JSONStringify(
      `[the value is ${json.length} characters of JSON, past the cap of ${limits.valueMaxChars}: return less, or print parts of it]`,
    );
  }
  return json;
}
