import { host } from './host.js';
import {
  MapDelete,
  MapGet,
  MapSet,
  MapSize,
  NullProto,
  PromiseConstructor,
  ReflectApply,
  TypeErrorConstructor,
  dictionary,
  defineValue,
  globalObject,
  newError,
} from './intrinsics.js';

/** A timer's callback and the arguments it is called with. */
class Due extends NullProto {
  constructor(
    readonly callback: (...args: unknown[]) => unknown,
    readonly args: readonly unknown[],
  ) {
    super();
  }
}

/** setTimeout, clearTimeout and sleep, on host timers; the engine calls `fire` when one is due. */
export class Timers extends NullProto {
  private readonly due = dictionary<number, Due>();

  constructor(private readonly reportUncaught: (error: unknown) => void) {
    super();
  }

  get pending(): number {
    return MapSize(this.due);
  }

  setTimeout(callback: unknown, ms: unknown, args: readonly unknown[]): number {
    if (typeof callback !== 'function') {
      throw newError(TypeErrorConstructor, 'setTimeout(callback, ms): callback must be a function');
    }
    const delay = typeof ms === 'number' && ms > 0 ? ms : 0;
    const id = host.setTimer(delay);
    MapSet(this.due, id, new Due(callback as (...args: unknown[]) => unknown, args));
    return id;
  }

  clearTimeout(id: unknown): void {
    if (typeof id === 'number' && MapDelete(this.due, id)) host.clearTimer(id);
  }

  sleep(ms: unknown): Promise<void> {
    return new PromiseConstructor<void>((resolve) => {
      this.setTimeout(resolve, ms, []);
    });
  }

  fire(id: number): void {
    const due = MapGet(this.due, id) as Due | undefined;
    if (due === undefined) return;
    MapDelete(this.due, id);
    try {
      ReflectApply(due.callback, undefined, due.args);
    } catch (error) {
      this.reportUncaught(error);
    }
  }

  install(): void {
    const define = (name: string, value: unknown): void => defineValue(globalObject, name, value);
    define('setTimeout', (callback: unknown, ms?: unknown, ...args: unknown[]) => this.setTimeout(callback, ms, args));
    define('clearTimeout', (id: unknown) => this.clearTimeout(id));
    define('sleep', (ms: unknown) => this.sleep(ms));
  }
}
