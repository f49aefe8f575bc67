/**
 * How a value prints in the script's output: strings as they are, everything else as compact
 * JSON that says what JSON can't hold ([Circular], [Function f], 12n, undefined).
 */

import { jsonStringify } from './intrinsics';

const MAX_DEPTH = 20;

export function inspect(value: unknown, formatError: (error: unknown) => string): string {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return formatError(value);
  return describe(value, new Set(), 0, formatError);
}

function describe(
  value: unknown,
  seen: Set<object>,
  depth: number,
  formatError: (error: unknown) => string,
): string {
  switch (typeof value) {
    case 'string':
      return jsonStringify(value);
    case 'number':
    case 'boolean':
      return String(value);
    case 'bigint':
      return `${value}n`;
    case 'undefined':
      return 'undefined';
    case 'symbol':
      return value.toString();
    case 'function':
      return `[Function ${value.name || '(anonymous)'}]`;
  }
  if (value === null) return 'null';
  const object = value as object;
  if (seen.has(object)) return '[Circular]';
  if (depth >= MAX_DEPTH) return Array.isArray(object) ? '[Array]' : '[Object]';
  if (object instanceof Error) return jsonStringify(formatError(object));
  if (object instanceof Date) return jsonStringify(isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString());
  if (object instanceof Map) return `Map(${describe([...object], seen, depth, formatError)})`;
  if (object instanceof Set) return `Set(${describe([...object], seen, depth, formatError)})`;
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      return `[${object.map((item) => describe(item, seen, depth + 1, formatError)).join(',')}]`;
    }
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return describe(toJSON.call(object), seen, depth + 1, formatError);
    const parts: string[] = [];
    for (const key of Object.keys(object)) {
      const item = (object as Record<string, unknown>)[key];
      parts.push(`${jsonStringify(key)}:${describe(item, seen, depth + 1, formatError)}`);
    }
    return `{${parts.join(',')}}`;
  } finally {
    seen.delete(object);
  }
}
