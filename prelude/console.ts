import type { Host } from './host';
import { inspect } from './inspect';

/** console.log/info/warn/error/debug write a line of output each; text() appends without a newline. */
export function installConsole(
  global: Record<string, unknown>,
  host: Host,
  formatError: (error: unknown) => string,
): void {
  const join = (values: unknown[]): string => values.map((value) => inspect(value, formatError)).join(' ');
  const write = (...values: unknown[]): void => host.out(join(values) + '\n');
  const text = (...values: unknown[]): void => host.out(join(values));
  const console = Object.freeze({
    log: write,
    info: write,
    warn: write,
    error: write,
    debug: write,
  });
  Object.defineProperty(global, 'console', { value: console, writable: true, configurable: true });
  Object.defineProperty(global, 'text', { value: text, writable: true, configurable: true });
}
