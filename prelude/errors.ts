import type { Limits } from './host';

/** A call the server refused before sending: nothing happened, safe to retry. */
export class ToolRefused extends Error {
  override name = 'ToolRefused';
}

/** A call past the tool-call timeout; the tool may still be running and may take effect. */
export class TimeoutError extends Error {
  override name = 'TimeoutError';
}

/** A result past the size or nesting cap; the call took effect, its result was not delivered. */
export class ResultTooLarge extends Error {
  override name = 'ResultTooLarge';
}

/** An error as the script should read it: name, message, and only the script's own frames. */
export function formatError(error: unknown, limits: Limits): string {
  if (!(error instanceof Error)) return `Uncaught ${safeString(error)}`;
  const head = `${safeString(error.name)}: ${safeString(error.message)}`;
  const stack = typeof error.stack === 'string' ? error.stack : '';
  const frames = stack
    .split('\n')
    .filter((line) => line.includes(`${limits.scriptFile}:`))
    .map((line) => adjustLine1(line, limits));
  return frames.length > 0 ? `${head}\n${frames.join('\n')}` : head;
}

/** Line 1 of the script shares its line with the wrapper; give its columns back. */
function adjustLine1(frame: string, limits: Limits): string {
  const marker = `${limits.scriptFile}:1:`;
  const at = frame.indexOf(marker);
  if (at === -1) return frame;
  const rest = frame.slice(at + marker.length);
  const column = parseInt(rest, 10);
  if (!Number.isFinite(column)) return frame;
  const digits = String(column).length;
  const adjusted = Math.max(1, column - limits.scriptLine1Offset);
  return frame.slice(0, at + marker.length) + adjusted + rest.slice(digits);
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

export function installErrorClasses(global: Record<string, unknown>): void {
  for (const cls of [ToolRefused, TimeoutError, ResultTooLarge]) {
    Object.defineProperty(global, cls.name, { value: cls, writable: true, configurable: true });
  }
}
