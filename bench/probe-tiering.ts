/**
 * Run as its own process by `node dist/bench/probe-tiering.js [v8 flags]`: the CPU time (not wall
 * time, so a loaded machine doesn't skew it) of the engine's compile, of a prelude restore, and of
 * the sieve in QuickJS, with the given V8 wasm flags instead of the engine's own; and the process's
 * RSS after a warm-up, as a pooled child would sit. Used to choose the flags in engine/wasm.ts.
 */
import { HOST_FUNCTIONS } from '../common/seam.js';

const flags = process.argv.slice(2).join(' ');
const cpuMs = (since?: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const startCpu = process.cpuUsage();
const { compileEngine } = await import('../engine/wasm.js');
const { readPreludeSnapshot, restorePrelude } = await import('../engine/prelude-vm.js');
const compiling = compileEngine(flags);
const wasm = await compiling;
const snapshot = readPreludeSnapshot();
if (!snapshot) throw new Error('no prelude snapshot: run npm run build');
const host = Object.fromEntries(HOST_FUNCTIONS.map((name) => [name, () => undefined]));
const options = { memoryLimit: 128 * 1024 * 1024, interruptHandler: () => false };
const SIEVE = `(function () {
  const n = 2000000, flags = new Uint8Array(n + 1); let count = 0;
  for (let i = 2; i <= n; i++) { if (!flags[i]) { count++; for (let j = i * i; j <= n; j += i) flags[j] = 1; } }
  return count;
})()`;

async function sieveCpuMs(): Promise<number> {
  const { vm } = await restorePrelude(wasm, snapshot!, options, host as never);
  const before = process.cpuUsage();
  vm.evalCode(SIEVE, 'sieve').dispose();
  const spent = cpuMs(before);
  vm.dispose();
  return spent;
}

const firstRestore = process.cpuUsage();
const { vm } = await restorePrelude(wasm, snapshot, options, host as never);
vm.evalCode('1 + 1', 'warm').dispose();
vm.dispose();
const readyCpuMs = cpuMs(startCpu);
const restoreCpuMs = cpuMs(firstRestore);
const rssAfterStartMiB = process.memoryUsage.rss() / 1024 / 1024;
const sieves = [await sieveCpuMs(), await sieveCpuMs(), await sieveCpuMs()];
process.stdout.write(
  JSON.stringify({
    flags,
    readyCpuMs,
    restoreCpuMs,
    rssAfterStartMiB,
    sieveCpuMs: sieves,
    rssAfterSievesMiB: process.memoryUsage.rss() / 1024 / 1024,
  }) + '\n',
);
