import type { JSValueHandle, QuickJS } from 'quickjs-wasi';
import { ENTRY_METHODS, type EntryMethod, type EntryMethods } from '../common/seam.js';
import { readGuestString } from './guest-string.js';

/** A handle for each parameter of `T`: the engine passes as many as the prelude's method takes. */
type Handles<T extends readonly unknown[]> = { [I in keyof T]: JSValueHandle };
export type EntryArgs<M extends EntryMethod> = Handles<Parameters<EntryMethods[M]>>;

/**
 * The prelude's entry object as the engine calls it (common/seam.ts, EntryMethods): each method
 * by a name of the seam's, with the seam's count of arguments. Every call disposes its arguments,
 * whether it returns or throws.
 */
export class PreludeEntry {
  private readonly methods = new Map<EntryMethod, JSValueHandle>();

  constructor(
    private readonly vm: QuickJS,
    private readonly entry: JSValueHandle,
  ) {
    for (const name of ENTRY_METHODS) this.methods.set(name, entry.getProp(name));
  }

  /** Calls a method for its effect. */
  call<M extends EntryMethod>(method: M, ...args: EntryArgs<M>): void {
    this.invoke(method, args).dispose();
  }

  /** A method's string; throws if the prelude gave anything else. */
  string<M extends EntryMethod>(method: M, ...args: EntryArgs<M>): string {
    return this.invoke(method, args).consume((h) => {
      if (!h.isString) throw new Error(`the prelude's ${method}() gave something other than a string`);
      return readGuestString(h);
    });
  }

  /** A method's number; throws if the prelude gave anything else. */
  number<M extends EntryMethod>(method: M, ...args: EntryArgs<M>): number {
    return this.invoke(method, args).consume((h) => {
      if (!h.isNumber) throw new Error(`the prelude's ${method}() gave something other than a number`);
      return h.toNumber();
    });
  }

  private invoke(method: EntryMethod, args: readonly JSValueHandle[]): JSValueHandle {
    try {
      return this.vm.callFunction(this.methods.get(method)!, this.entry, ...args);
    } finally {
      for (const arg of args) if (!arg.disposed) arg.dispose();
    }
  }
}
