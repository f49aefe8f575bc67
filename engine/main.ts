/**
 * A script's child process. Started by the server (src/isolate) with an empty environment in a
 * private directory; it makes the script's VM, says `ready`, runs the one script it is given,
 * says how it ended, and exits. Options arrive as JSON in argv[2].
 *
 * The WebAssembly compile starts before the engine's modules load, so the two overlap.
 */
import type { ChildOptions } from '../protocol/contract.js';
import { closeInheritedFds } from './inherited-fds.js';
import { COLD_ENGINE_FLAGS, POOLED_ENGINE_FLAGS, compileEngine } from './wasm.js';

closeInheritedFds();
const { warm } = JSON.parse(process.argv[2] ?? '{}') as Partial<ChildOptions>;
const wasm = compileEngine(warm === true ? POOLED_ENGINE_FLAGS : COLD_ENGINE_FLAGS);
const { runChild } = await import('./child.js');
await runChild(wasm);
