import type { JSValueHandle, QuickJS } from 'quickjs-wasi';
import { HOST_FUNCTIONS, HOST_REFUSED, type HostFunctionName, type HostFunctions } from '../../common/seam.js';
import { readGuestString } from '../guest-string.js';
import type { HostImpl } from '../prelude-vm.js';

type Kind<T> = T extends string ? 'string' : T extends number ? 'number' : never;
type ArgumentKinds<F> = F extends (...args: infer A) => unknown ? { readonly [I in keyof A]: Kind<A[I]> } : never;

/** What each host function takes, in order, derived from the seam's types: a change there fails to compile here. */
const ARGUMENT_KINDS = {
  send: ['string', 'string'],
  sendApi: ['string', 'string'],
  checkArgs: ['string'],
  out: ['string'],
  notify: ['string'],
  setTimer: ['number'],
  clearTimer: ['number'],
  search: ['string', 'number'],
  closest: ['string'],
  show: ['string'],
  stripTypes: ['string'],
} as const satisfies { readonly [K in HostFunctionName]: ArgumentKinds<HostFunctions[K]> };

type Primitive = string | number;

/**
 * The host functions as QuickJS calls them: each argument's type is tested by the engine (so no
 * script code runs), anything but the primitives a function takes gets HOST_REFUSED without
 * reaching it, and what it gives goes back as a primitive. `vm`: the VM, once it is made (the
 * functions are given to it as it is made).
 */
export function bridgeHost(vm: () => QuickJS, functions: HostFunctions): HostImpl {
  const host = {} as Record<HostFunctionName, (...args: JSValueHandle[]) => JSValueHandle>;
  for (const name of HOST_FUNCTIONS) {
    const fn = functions[name] as (...args: Primitive[]) => Primitive | void;
    const kinds: readonly ('string' | 'number')[] = ARGUMENT_KINDS[name];
    host[name] = guarded(name, (...args) => {
      const values: Primitive[] = [];
      for (const [index, kind] of kinds.entries()) {
        const value = kind === 'string' ? textOf(args[index]) : numberOf(args[index]);
        if (value === undefined) return vm().newString(HOST_REFUSED);
        values.push(value);
      }
      return handleOf(vm(), fn.apply(functions, values));
    });
  }
  return host;
}

function guarded(name: string, fn: (...args: JSValueHandle[]) => JSValueHandle) {
  return (...args: JSValueHandle[]): JSValueHandle => {
    try {
      return fn(...args);
    } catch (error) {
      // A string, not an Error: quickjs-wasi copies an Error's host stack into the script.
      process.stderr.write(`engine error in codemode.${name}: ${(error as Error)?.stack ?? String(error)}\n`);
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- see above: a string, on purpose
      throw `codemode: the engine failed in ${name} (the server's log has the details)`;
    }
  };
}

function handleOf(vm: QuickJS, value: Primitive | void): JSValueHandle {
  if (typeof value === 'number') return vm.newNumber(value);
  return typeof value === 'string' ? vm.newString(value) : vm.undefined;
}

/** A host function's argument, when it is a string: tested by the engine, so no script code runs. */
function textOf(handle: JSValueHandle | undefined): string | undefined {
  return handle !== undefined && handle.isString ? readGuestString(handle) : undefined;
}

/** A host function's argument, when it is a number. */
function numberOf(handle: JSValueHandle | undefined): number | undefined {
  return handle !== undefined && handle.isNumber ? handle.toNumber() : undefined;
}
