/**
 * Run as its own process by bench/stack-depth.ts, with a V8 `--stack-size`: runs one deep path in
 * QuickJS with the given QuickJS stack limit, as a script's child would (Liftoff only), and
 * prints which stack ran out first: `quickjs` (the script's RangeError) or `host` (V8's).
 */
import { pathToFileURL } from 'node:url';
import { QuickJS } from 'quickjs-wasi';
import { compileEngine, newEngineMemory, withMemory } from '../engine/wasm.js';

/** Each path QuickJS recurses along, as a script would drive it 100,000 levels deep. */
export const DEEP_PATHS: Readonly<Record<string, string>> = {
  'plain recursion': 'function f() { f() } f()',
  'JSON.parse': 'JSON.parse("[".repeat(100000) + "]".repeat(100000))',
  'JSON.stringify': 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; JSON.stringify(a)',
  'source: nested parentheses': 'eval("(".repeat(100000) + "1" + ")".repeat(100000))',
  'source: nested object literals': 'eval("({a:".repeat(100000) + "1" + "})".repeat(100000))',
  'source: nested array literals': 'eval("[".repeat(100000) + "]".repeat(100000))',
  'source: nested templates': 'eval("`${".repeat(50000) + "1" + "}`".repeat(50000))',
  'a toJSON that recurses': 'const o = { toJSON() { return { a: this } } }; JSON.stringify(o)',
};

const [path, limit] = process.argv.slice(2);
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && path !== undefined && limit !== undefined) {
  const wasm = await compileEngine();
  const vm = await QuickJS.create({ wasm, wasi: withMemory(newEngineMemory(wasm)), maxStackSize: Number(limit) });
  try {
    // Any error the script can catch means QuickJS ran out first (its parser may say SyntaxError).
    vm.evalCode(`try { ${DEEP_PATHS[path]} } catch (e) {}`).dispose();
    process.stdout.write('quickjs');
  } catch (error) {
    process.stdout.write(error instanceof RangeError ? 'host' : `other: ${String(error)}`);
  }
}
