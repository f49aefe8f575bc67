import { existsSync, readFileSync } from 'node:fs';
import { CompileFlags, QuickJS, type JSValueHandle, type QuickJSOptions } from 'quickjs-wasi';
import { HOST_FUNCTIONS, type HostFunctionName, type PreludeLimits } from '../common/seam.js';
import { CALLS_IN_FLIGHT_MAX, CALL_ARGS_MAX_BYTES, NOTIFY_PAYLOAD_MAX_CHARS, VALUE_MAX_CHARS } from '../protocol/contract.js';
import { SCRIPT_FILE } from '../common/script-position.js';
import { SCRIPT_PREFIX } from './script-source.js';
import { linearMemoryOf, wipe } from './linear-memory.js';
import { SnapshotRestore } from './snapshot-restore.js';
import { newEngineMemory, withMemory } from './wasm.js';

export type HostImpl = Record<HostFunctionName, (...args: JSValueHandle[]) => JSValueHandle>;

const distDir = new URL('../', import.meta.url);
export const PRELUDE_BUNDLE = new URL('prelude.js', distDir);
export const PRELUDE_SNAPSHOT = new URL('prelude.snapshot', distDir);
export const PRELUDE_SNAPSHOT_META = new URL('prelude.snapshot.json', distDir);

export interface SnapshotMeta {
  /** The entry object's handle, exported before the snapshot (see QuickJS.exportHandle). */
  readonly entryToken: number;
  readonly quickjsWasi: string;
}

/** What the engine holds of a VM with the prelude installed. */
export interface PreludeVm {
  readonly vm: QuickJS;
  readonly entry: JSValueHandle;
  /**
   * Disposes the VM and overwrites its memory with zeros at once: nothing of what it held is left
   * in the process. A restored VM's memory then goes to the next VM restored from the same
   * snapshot (SnapshotRestore.recycle).
   */
  readonly release: () => void;
}

export type VmOptions = Omit<QuickJSOptions, 'wasm'>;

const LIMITS: PreludeLimits = {
  callsInFlightMax: CALLS_IN_FLIGHT_MAX,
  argsMaxBytes: CALL_ARGS_MAX_BYTES,
  valueMaxChars: VALUE_MAX_CHARS,
  notifyPayloadMaxChars: NOTIFY_PAYLOAD_MAX_CHARS,
  scriptFile: SCRIPT_FILE,
  scriptLine1Offset: SCRIPT_PREFIX.length,
};

function hostName(name: HostFunctionName): string {
  return `codemode.${name}`;
}

/**
 * Evaluates the prelude bundle in a fresh VM: the build's way, and the fallback at run time. The
 * bundle is compiled without its source or line tables, so the prelude's functions print as
 * native code and its frames carry no positions.
 */
export async function evaluatePrelude(wasm: WebAssembly.Module, options: VmOptions, host: HostImpl): Promise<PreludeVm> {
  const vm = await QuickJS.create({ ...options, wasm, wasi: withMemory(newEngineMemory(wasm), options.wasi) });
  const hostObject = vm.newObject();
  for (const name of HOST_FUNCTIONS) {
    const fn = vm.newFunction(hostName(name), (...args) => host[name](...args));
    vm.setProp(hostObject, name, fn);
    fn.dispose();
  }
  const bytecode = vm.compile(
    readFileSync(PRELUDE_BUNDLE, 'utf8'),
    'prelude',
    0,
    CompileFlags.STRIP_SOURCE | CompileFlags.STRIP_DEBUG,
  );
  const install = vm.evalBytecode(bytecode);
  const limits = vm.hostToHandle(LIMITS);
  const entry = vm.callFunction(install, vm.undefined, hostObject, limits);
  install.dispose();
  limits.dispose();
  hostObject.dispose();
  const release = (): void => {
    const memory = linearMemoryOf(vm);
    vm.dispose();
    wipe(memory);
  };
  return { vm, entry, release };
}

export interface PreludeSnapshot {
  readonly bytes: Uint8Array;
  readonly meta: SnapshotMeta;
}

/** The build's snapshot, or null when it is missing (the caller says so and evaluates instead). */
export function readPreludeSnapshot(): PreludeSnapshot | null {
  if (!existsSync(PRELUDE_SNAPSHOT) || !existsSync(PRELUDE_SNAPSHOT_META)) return null;
  return {
    bytes: readFileSync(PRELUDE_SNAPSHOT),
    meta: JSON.parse(readFileSync(PRELUDE_SNAPSHOT_META, 'utf8')) as SnapshotMeta,
  };
}

/** Each snapshot's restore (a child has one), made at its first use: it reads the snapshot once. */
const restores = new WeakMap<PreludeSnapshot, SnapshotRestore>();

export async function restorePrelude(
  wasm: WebAssembly.Module,
  snapshot: PreludeSnapshot,
  options: VmOptions,
  host: HostImpl,
): Promise<PreludeVm> {
  let restore = restores.get(snapshot);
  if (restore?.module !== wasm) {
    restore = new SnapshotRestore(wasm, snapshot.bytes);
    restores.set(snapshot, restore);
  }
  const vm = await restore.restore(options);
  for (const name of HOST_FUNCTIONS) {
    vm.registerHostCallback(hostName(name), (...args) => host[name](...args));
  }
  const release = (): void => {
    const memory = linearMemoryOf(vm);
    vm.dispose();
    restore.recycle(memory);
  };
  return { vm, entry: vm.importHandle(snapshot.meta.entryToken), release };
}
