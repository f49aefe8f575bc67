/**
 * Run as its own process by the bench: times the engine's start-up steps in a fresh Node, as a
 * child sees them, and prints them as JSON. Cold: nothing compiled yet. Warm: after a warm-up.
 */
import { HOST_FUNCTIONS } from '../common/seam.js';
import { compileEngine } from '../engine/wasm.js';

const started = performance.now();
const compiling = compileEngine();
const { readPreludeSnapshot, restorePrelude } = await import('../engine/prelude-vm.js');
const imported = performance.now();
const wasm = await compiling;
const compiled = performance.now();
const snapshot = readPreludeSnapshot();
if (!snapshot) throw new Error('no prelude snapshot: run npm run build');
const host = Object.fromEntries(
  HOST_FUNCTIONS.map((name) => [
    name,
    () => {
      throw new Error('the probe calls no host function');
    },
  ]),
);
const options = { memoryLimit: 128 * 1024 * 1024, interruptHandler: () => false };

const SCRIPT = '(async function () {\nconst r = await tools.echo({ text: "x" });\nreturn JSON.stringify(r);\n})';

async function timeOnce(): Promise<{ restoreMs: number; scriptCompileMs: number }> {
  const before = performance.now();
  const { vm } = await restorePrelude(wasm, snapshot!, options, host as never);
  const restored = performance.now();
  vm.evalCode(SCRIPT, 'script').dispose();
  const done = performance.now();
  vm.dispose();
  return { restoreMs: restored - before, scriptCompileMs: done - restored };
}

const cold = await timeOnce();
await timeOnce();
const warm = await timeOnce();
process.stdout.write(
  JSON.stringify({
    nodeStartMs: started,
    importMs: imported - started,
    wasmCompileWaitMs: compiled - imported,
    coldRestoreMs: cold.restoreMs,
    coldScriptCompileMs: cold.scriptCompileMs,
    warmRestoreMs: warm.restoreMs,
    warmScriptCompileMs: warm.scriptCompileMs,
  }),
);
