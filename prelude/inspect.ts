/**
 * How a value prints in the script's output: strings as they are, everything else as compact
 * JSON that says what JSON can't hold ([Circular], [Function f], 12n, undefined). Reading a value
 * may run the script's own getters, toJSON and Proxy traps: they are its values.
 */
import { formatError } from './errors.js';
import {
  ArrayIsArray,
  DateGetTime,
  DateToISOString,
  ErrorIsError,
  JSONStringify,
  MapEntries,
  MapIteratorNext,
  ObjectKeys,
  ReflectApply,
  SetAdd,
  SetDelete,
  SetHas,
  SetIteratorNext,
  SetValues,
  StringConstructor,
  SymbolToString,
  collection,
  list,
  stringOf,
} from './intrinsics.js';

const MAX_DEPTH = 20;

export function inspect(value: unknown): string {
  if (typeof value === 'string') return value;
  if (ErrorIsError(value)) return formatError(value);
  try {
    return describe(value, collection<object>(), 0);
  } catch (error) {
    return `[a value that could not be printed: ${ErrorIsError(error) ? formatError(error) : stringOf(error)}]`;
  }
}

function describe(value: unknown, seen: Set<object>, depth: number): string {
  switch (typeof value) {
    case 'string':
      return JSONStringify(value);
    case 'number':
    case 'boolean':
      return StringConstructor(value);
    case 'bigint':
      return `${StringConstructor(value)}n`;
    case 'undefined':
      return 'undefined';
    case 'symbol':
      return SymbolToString(value);
    case 'function': {
      const name = functionName(value);
      return `[Function ${name === '' ? '(anonymous)' : name}]`;
    }
  }
  if (value === null) return 'null';
  const object = value as object;
  if (SetHas(seen, object)) return '[Circular]';
  if (depth >= MAX_DEPTH) return ArrayIsArray(object) ? '[Array]' : '[Object]';
  if (ErrorIsError(object)) return JSONStringify(formatError(object));
  const time = dateTime(object);
  if (time !== undefined) return time;
  SetAdd(seen, object);
  try {
    const entries = mapEntries(object);
    if (entries !== undefined) return `Map(${describeList(entries, seen, depth)})`;
    const values = setValues(object);
    if (values !== undefined) return `Set(${describeList(values, seen, depth)})`;
    if (ArrayIsArray(object)) return describeList(object, seen, depth);
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return describe(ReflectApply(toJSON, object, []), seen, depth + 1);
    const keys = ObjectKeys(object);
    let parts = '';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const part = `${JSONStringify(key)}:${describe((object as Record<string, unknown>)[key], seen, depth + 1)}`;
      parts = i === 0 ? part : `${parts},${part}`;
    }
    return `{${parts}}`;
  } finally {
    SetDelete(seen, object);
  }
}

function describeList(items: readonly unknown[], seen: Set<object>, depth: number): string {
  let parts = '';
  const length = items.length;
  for (let i = 0; i < length; i++) {
    const part = describe(items[i], seen, depth + 1);
    parts = i === 0 ? part : `${parts},${part}`;
  }
  return `[${parts}]`;
}

function functionName(fn: unknown): string {
  try {
    const name = (fn as { name?: unknown }).name;
    return typeof name === 'string' ? name : '';
  } catch {
    return '';
  }
}

/** An ISO date for a Date (a brand check that runs no script code), else undefined. */
function dateTime(object: object): string | undefined {
  let time: number;
  try {
    time = DateGetTime(object);
  } catch {
    return undefined;
  }
  return JSONStringify(time === time ? DateToISOString(object) : 'Invalid Date');
}

/** A Map's entries as [key, value] pairs, read with the original iterator; undefined for anything else. */
function mapEntries(object: object): unknown[] | undefined {
  let iterator: Iterator<[unknown, unknown]>;
  try {
    iterator = MapEntries(object);
  } catch {
    return undefined;
  }
  const entries = list<unknown>();
  for (let step = MapIteratorNext(iterator); !step.done; step = MapIteratorNext(iterator)) {
    const pair = list<unknown>();
    pair[0] = step.value[0];
    pair[1] = step.value[1];
    entries[entries.length] = pair;
  }
  return entries;
}

/** A Set's values, read with the original iterator; undefined for anything else. */
function setValues(object: object): unknown[] | undefined {
  let iterator: Iterator<unknown>;
  try {
    iterator = SetValues(object);
  } catch {
    return undefined;
  }
  const values = list<unknown>();
  for (let step = SetIteratorNext(iterator); !step.done; step = SetIteratorNext(iterator)) values[values.length] = step.value;
  return values;
}
