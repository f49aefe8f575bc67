import { limits } from './host.js';
import {
  ErrorConstructor,
  ErrorIsError,
  NumberParseInt,
  StringIndexOf,
  StringSlice,
  defineValue,
  globalObject,
  list,
  newError,
  stringOf,
} from './intrinsics.js';

/** A call the server refused before sending: nothing happened; its message says whether a retry can pass. */
export class ToolRefused extends ErrorConstructor {}

/** A call past the tool-call timeout; the tool may still be running and may take effect. */
export class TimeoutError extends ErrorConstructor {}

/** A result past the size or nesting cap; the call took effect, its result was not delivered. */
export class ResultTooLarge extends ErrorConstructor {}

const ERROR_CLASSES = [ToolRefused, TimeoutError, ResultTooLarge] as const;
const ERROR_NAMES = ['ToolRefused', 'TimeoutError', 'ResultTooLarge'] as const;

// Built by the captured Error constructor, not by the classes a script can see and re-parent.
export const refused = (message: string): Error => newError(ErrorConstructor, message, ToolRefused);
export const timedOut = (message: string): Error => newError(ErrorConstructor, message, TimeoutError);
export const resultTooLarge = (message: string): Error => newError(ErrorConstructor, message, ResultTooLarge);

/** Puts the error classes on the global object, each with its name on its prototype. */
export function installErrorClasses(): void {
  for (let i = 0; i < ERROR_CLASSES.length; i++) {
    const cls = ERROR_CLASSES[i]!;
    const name = ERROR_NAMES[i]!;
    defineValue(cls.prototype, 'name', name);
    defineValue(globalObject, name, cls);
  }
}

/** What a thrown value says, for a message of ours: an error's message, or the value as text. */
export function describeThrown(thrown: unknown): string {
  if (!ErrorIsError(thrown)) return stringOf(thrown);
  try {
    return stringOf((thrown as { message?: unknown }).message);
  } catch {
    return 'an error whose message could not be read';
  }
}

/** An error as the script should read it: name, message, and only the script's own frames. */
export function formatError(error: unknown): string {
  if (!ErrorIsError(error)) return `Uncaught ${stringOf(error)}`;
  const head = `${readField(error, 'name')}: ${readField(error, 'message')}`;
  const stack = readField(error, 'stack');
  const frames = scriptFrames(stack);
  return frames === '' ? head : `${head}\n${frames}`;
}

/** A field of an error, as text; a getter that throws reads as empty. */
function readField(error: unknown, field: 'name' | 'message' | 'stack'): string {
  try {
    const value = (error as Record<string, unknown>)[field];
    return value === undefined ? '' : stringOf(value);
  } catch {
    return '';
  }
}

/** The lines of a stack that are the script's own frames, line 1's columns given back. */
export function scriptFrames(stack: string): string {
  const marker = `${limits.scriptFile}:`;
  const kept = list<string>();
  let start = 0;
  while (start <= stack.length) {
    let end = StringIndexOf(stack, '\n', start);
    if (end === -1) end = stack.length;
    const line = StringSlice(stack, start, end);
    if (StringIndexOf(line, marker) !== -1) kept[kept.length] = adjustLine1(line, marker);
    start = end + 1;
  }
  let joined = '';
  for (let i = 0; i < kept.length; i++) joined = i === 0 ? kept[i]! : `${joined}\n${kept[i]!}`;
  return joined;
}

/** Line 1 of the script shares its line with the wrapper; give its columns back. */
function adjustLine1(frame: string, marker: string): string {
  const line1 = `${marker}1:`;
  const at = StringIndexOf(frame, line1);
  if (at === -1) return frame;
  const rest = StringSlice(frame, at + line1.length);
  const column = NumberParseInt(rest, 10);
  if (!(column >= 0)) return frame;
  const digits = `${column}`.length;
  const adjusted = column - limits.scriptLine1Offset > 1 ? column - limits.scriptLine1Offset : 1;
  return `${StringSlice(frame, 0, at + line1.length)}${adjusted}${StringSlice(rest, digits)}`;
}
