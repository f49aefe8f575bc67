import type { Calls } from './calls.js';
import { describeThrown } from './errors.js';
import {
  JSONStringify,
  ObjectFreeze,
  ObjectHasOwn,
  RangeErrorConstructor,
  TypeErrorConstructor,
  blank,
  defineValue,
  globalObject,
  newError,
} from './intrinsics.js';

/**
 * Memory between scripts: `store(key, value, {ttlMs}?)`, `load(key)`, and on `state` the same two
 * with `keys(prefix?)` and `remove(key)`. Each is a call like a tool call (the same places and
 * caps; ToolRefused when the server refuses it, past a limit say, and nothing was written); the
 * server keeps the values per principal (src/state/). A value is JSON: `load` gives a copy.
 */
export function installState(calls: Calls): void {
  const store = (key?: unknown, value?: unknown, options?: unknown): Promise<unknown> => {
    const label = 'store(key, value)';
    const keyJson = keyJsonOf(label, key);
    const valueJson = valueJsonOf(label, value);
    const ttlMs = ttlOf(options);
    const ttlField = ttlMs === undefined ? '' : `,"ttlMs":${ttlMs}`;
    return calls.callApi('state.store', `{"key":${keyJson},"value":${valueJson}${ttlField}}`, label, nothing);
  };
  const load = (key?: unknown): Promise<unknown> =>
    calls.callApi('state.load', `{"key":${keyJsonOf('load(key)', key)}}`, 'load(key)', loaded);
  const keys = (prefix?: unknown): Promise<unknown> => {
    if (prefix === undefined) return calls.callApi('state.keys', '{}', 'state.keys(prefix)');
    if (typeof prefix !== 'string') {
      throw newError(TypeErrorConstructor, `state.keys(prefix): prefix must be a string, not ${typeOf(prefix)}`);
    }
    return calls.callApi('state.keys', `{"prefix":${JSONStringify(prefix)}}`, 'state.keys(prefix)');
  };
  const remove = (key?: unknown): Promise<unknown> =>
    calls.callApi('state.remove', `{"key":${keyJsonOf('state.remove(key)', key)}}`, 'state.remove(key)');

  const state = blank<Record<string, (...args: unknown[]) => Promise<unknown>>>();
  state.store = store;
  state.load = load;
  state.keys = keys;
  state.remove = remove;
  defineValue(globalObject, 'store', store);
  defineValue(globalObject, 'load', load);
  defineValue(globalObject, 'state', ObjectFreeze(state));
}

/** A string only: a key object's toString would be the script's code in our frame. The server checks its length. */
function keyJsonOf(label: string, key: unknown): string {
  if (typeof key !== 'string') throw newError(TypeErrorConstructor, `${label}: key must be a string, not ${typeOf(key)}`);
  return JSONStringify(key);
}

/** The value as JSON text. JSON.stringify runs the script's own toJSON and getters (they are its values). */
function valueJsonOf(label: string, value: unknown): string {
  let json: unknown;
  try {
    json = JSONStringify(value);
  } catch (error) {
    throw newError(TypeErrorConstructor, `${label}: the value can't become JSON: ${describeThrown(error)}; nothing was stored`);
  }
  if (typeof json !== 'string') {
    throw newError(
      TypeErrorConstructor,
      `${label}: the value must become JSON, but it is ${typeOf(value)}; nothing was stored (state.remove(key) forgets a key)`,
    );
  }
  return json;
}

/** `{ttlMs}`: a whole number of milliseconds above 0, or none (kept until removed). */
function ttlOf(options: unknown): number | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw newError(TypeErrorConstructor, `store(key, value, options): options must be an object {ttlMs}, not ${typeOf(options)}`);
  }
  const ttlMs = (options as { ttlMs?: unknown }).ttlMs;
  if (ttlMs === undefined) return undefined;
  if (typeof ttlMs !== 'number' || !(ttlMs > 0) || ttlMs % 1 !== 0 || ttlMs > 9_007_199_254_740_991) {
    throw newError(
      RangeErrorConstructor,
      `store(key, value, {ttlMs}): ttlMs must be a whole number of milliseconds above 0; got ${typeof ttlMs === 'number' ? `${ttlMs}` : typeOf(ttlMs)}`,
    );
  }
  return ttlMs;
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

/** The server answers a load `{value}`, or `{}` for a key it doesn't hold. */
function loaded(answer: unknown): unknown {
  const found = answer as { value?: unknown };
  return ObjectHasOwn(found, 'value') ? found.value : undefined;
}

function nothing(): undefined {
  return undefined;
}
