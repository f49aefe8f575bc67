import { host } from './host.js';
import { inspect } from './inspect.js';
import { ObjectFreeze, defineValue, globalObject } from './intrinsics.js';

/** The values of one console call, printed and joined by spaces. */
function join(values: readonly unknown[]): string {
  let text = '';
  for (let i = 0; i < values.length; i++) text = i === 0 ? inspect(values[i]) : `${text} ${inspect(values[i])}`;
  return text;
}

/** console.log/info/warn/error/debug write a line of output each; text() appends without a newline. */
export function installConsole(): void {
  const write = (...values: unknown[]): void => host.out(`${join(values)}\n`);
  const text = (...values: unknown[]): void => host.out(join(values));
  const console = ObjectFreeze({ log: write, info: write, warn: write, error: write, debug: write });
  defineValue(globalObject, 'console', console);
  defineValue(globalObject, 'text', text);
}
