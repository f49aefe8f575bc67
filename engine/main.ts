/**
 * A script's child process. Started by the server (src/script-host) with an empty environment in a
 * private directory; it makes a VM, says `ready`, runs the script it is given and says how it
 * ended; then it exits when told, or, told to `reset`, makes a fresh VM for the next script of the
 * same owner (engine/child.ts). Options arrive as JSON in argv[2].
 *
 * The WebAssembly compile starts before the engine's modules load, so the two overlap.
 */
import { lowerHelperThreads } from './helper-threads.js';
import { closeInheritedFds } from './inherited-fds.js';
import { compileEngine } from './wasm.js';

closeInheritedFds();
lowerHelperThreads();
const wasm = compileEngine();
const { runChild } = await import('./child.js');
await runChild(wasm);
