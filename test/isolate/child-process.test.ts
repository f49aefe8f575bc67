import { readFileSync, readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptChild } from '../../src/isolate/script-child.js';
import { DEFAULT_SETTINGS } from '../../src/settings.js';
import { scriptProcessOptions } from '../../src/isolate/script-process.js';

const children: ScriptChild[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill();
    await child.gone;
  }
});

async function readyChild(): Promise<number> {
  const child = new ScriptChild(scriptProcessOptions(DEFAULT_SETTINGS, true));
  children.push(child);
  await child.ready;
  return child.pid!;
}

/** The nice value of `pid`'s main thread and of each of its other threads (field 19 of a thread's stat). */
function threadNiceness(pid: number): { main: number; helpers: number[] } {
  const niceOf = (tid: number) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  };
  const helpers = readdirSync(`/proc/${pid}/task`)
    .map(Number)
    .filter((tid) => tid !== pid);
  return { main: niceOf(pid), helpers: helpers.map(niceOf) };
}

describe("a script's child process", () => {
  it("gets none of the server's environment: only the malloc setting that returns its compile memory", async () => {
    const pid = await readyChild();
    const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
    expect(process.env.PATH).toBeDefined();
    expect(environment).toEqual(['MALLOC_MMAP_THRESHOLD_=32768']);
  });

  it('runs its helper threads (where the engine is optimised) at the idle priority, its main thread at the usual one', async () => {
    const pid = await readyChild();
    const { main, helpers } = threadNiceness(pid);
    expect(main).toBe(0);
    expect(helpers.length).toBeGreaterThan(0);
    expect(helpers.every((nice) => nice === 19)).toBe(true);
  });
});
