import type { Host } from './host';

/** setTimeout, clearTimeout and sleep, on host timers; the engine calls `fire` when one is due. */
export class Timers {
  private readonly callbacks = new Map<number, () => void>();

  constructor(
    private readonly host: Host,
    private readonly reportUncaught: (error: unknown) => void,
  ) {}

  get pending(): number {
    return this.callbacks.size;
  }

  setTimeout(callback: unknown, ms?: unknown, ...args: unknown[]): number {
    if (typeof callback !== 'function') {
      throw new TypeError('setTimeout(callback, ms): callback must be a function');
    }
    const delay = typeof ms === 'number' && ms > 0 ? ms : 0;
    const id = this.host.setTimer(delay);
    this.callbacks.set(id, () => callback(...args));
    return id;
  }

  clearTimeout(id: unknown): void {
    if (typeof id === 'number' && this.callbacks.delete(id)) this.host.clearTimer(id);
  }

  sleep(ms: unknown): Promise<void> {
    return new Promise((resolve) => this.setTimeout(resolve, ms));
  }

  fire(id: number): void {
    const callback = this.callbacks.get(id);
    if (!callback) return;
    this.callbacks.delete(id);
    try {
      callback();
    } catch (error) {
      this.reportUncaught(error);
    }
  }

  install(global: Record<string, unknown>): void {
    const define = (name: string, value: unknown) =>
      Object.defineProperty(global, name, { value, writable: true, configurable: true });
    define('setTimeout', (callback: unknown, ms?: unknown, ...args: unknown[]) =>
      this.setTimeout(callback, ms, ...args),
    );
    define('clearTimeout', (id: unknown) => this.clearTimeout(id));
    define('sleep', (ms: unknown) => this.sleep(ms));
  }
}
