import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STOP_FILE_NAME } from '../../protocol/contract.js';
import type { StateCaller, ToolCaller } from '../../src/script-host/apis.js';
import { ReusedChild, processMemoryHolds } from '../support/reused-child.js';
import { toolEntries } from '../support/scripts.js';

/**
 * A child that ran a script, was reset and runs the next: nothing of the first is reachable from
 * the second. Each case runs a script that leaves something behind, resets the same process, and
 * looks for it from the next script (or, for memory, from outside).
 */
const children: ReusedChild[] = [];

function reusedChild(): ReusedChild {
  const child = new ReusedChild();
  children.push(child);
  return child;
}

afterEach(async () => {
  for (const child of children.splice(0)) await child.close();
});

/** Runs `first`, which must leave the child reusable, resets it, and runs `second` on the same process. */
async function afterReuse(first: string, second: string) {
  const reused = reusedChild();
  const before = await reused.run(first);
  const pid = reused.child.pid;
  await reused.reset();
  const after = await reused.run(second);
  expect(reused.child.pid).toBe(pid);
  return { before, after };
}

describe('a reused child keeps nothing of the script before', () => {
  it('no globals, var or function declarations', async () => {
    const { before, after } = await afterReuse(
      'globalThis.leaked = 42; var declared = 1; function named() {} tools.extra = 1; return "set"',
      'return [typeof leaked, typeof declared, typeof named, "extra" in tools]',
    );
    expect(before.value).toBe('"set"');
    expect(after.error).toBeUndefined();
    expect(JSON.parse(after.value!)).toEqual(['undefined', 'undefined', 'undefined', false]);
  });

  it('no changed prototypes or built-ins', async () => {
    const { after } = await afterReuse(
      'Object.prototype.polluted = 1; Array.prototype.map = () => "evil"; JSON.stringify = () => "x"; ' +
        'Promise.prototype.then = null; Math.random = () => 4; return 1',
      'return [({}).polluted, [1].map((v) => v * 2), JSON.stringify({ a: 1 }), typeof Promise.prototype.then, Math.random() < 1]',
    );
    expect(JSON.parse(after.value!)).toEqual([undefined, [2], '{"a":1}', 'function', true].map((v) => v ?? null));
  });

  it('no timers: ones left pending by a script that failed never fire in the next', async () => {
    const reused = reusedChild();
    const first = await reused.run(
      'setTimeout(() => console.log("LATE timeout"), 0); setInterval(() => console.log("LATE interval"), 1); throw new Error("gone")',
    );
    expect(first.status).toBe('failed');
    await reused.reset();
    // Long enough in the child's own terms for any timer of the first script to have fired: the
    // second script's own timers (of the same delays) fire first, in order, then it returns.
    const second = await reused.run(
      'const fired = []; await new Promise((r) => setTimeout(r, 0)); fired.push("own 0"); ' +
        'await new Promise((r) => setTimeout(r, 5)); fired.push("own 5"); return fired',
    );
    expect(JSON.parse(second.value!)).toEqual(['own 0', 'own 5']);
    expect(second.output).not.toContain('LATE');
  });

  it("no pending calls: an answer to the last script's call that comes late reaches nothing", async () => {
    const reused = reusedChild();
    let answerLate: (text: string) => void = () => {};
    const late = new Promise<string>((resolve) => (answerLate = resolve));
    const slow: ToolCaller = async () => ({ content: [{ type: 'text', text: await late }] });
    const first = reused.start('tools.slow({}).then(() => {}); await sleep(0); throw new Error("left its call out")', {
      tools: toolEntries('slow'),
      callTool: slow,
    });
    await first.ended;
    expect((await first.observe(0)).status).toBe('failed');
    await reused.reset();
    // The second script's first call has the id the first script's call had; the late answer comes first.
    let answerMine: (text: string) => void = () => {};
    const mine = new Promise<string>((resolve) => (answerMine = resolve));
    const second = reused.start('const r = await tools.echo({}); return r.content[0].text', {
      callTool: async () => {
        answerLate('SECRET of the first script');
        return { content: [{ type: 'text', text: await mine }] };
      },
    });
    answerMine('the second script’s own answer');
    await second.ended;
    expect((await second.observe(0)).value).toBe(JSON.stringify('the second script’s own answer'));
  });

  it('no memory: what the last script held is gone from the process once it is reset', async () => {
    const reused = reusedChild();
    // Built at run time, so the text is in the engine's memory only, never in the script's source.
    const marker = [...'q7Zk'.repeat(4)].map((c, i) => String.fromCharCode(c.charCodeAt(0) + (i % 7))).join('');
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let calledBack: () => void = () => {};
    const called = new Promise<void>((resolve) => (calledBack = resolve));
    const holding = reused.start(
      "globalThis.kept = Array(4096).fill([...'q7Zk'.repeat(4)].map((c, i) => String.fromCharCode(c.charCodeAt(0) + (i % 7))).join('')).join('|'); " +
        'await tools.wait({}); throw new Error("done")',
      {
        tools: toolEntries('wait'),
        callTool: async () => {
          calledBack();
          await held;
          return { content: [] };
        },
      },
    );
    await called;
    // The check can fail: while the script waits, its engine's memory holds the marker.
    expect(processMemoryHolds(reused.child.pid!, marker)).toBe(true);
    release();
    await holding.ended;
    expect((await holding.observe(0)).status).toBe('failed');
    await reused.reset();
    expect(processMemoryHolds(reused.child.pid!, marker)).toBe(false);
  });

  it("no store: the next script's load asks the server, nothing answers it from the child", async () => {
    const reused = reusedChild();
    const stored = new Map<string, unknown>();
    const asked: string[] = [];
    const callState: StateCaller = async (request) => {
      asked.push(request.call);
      if (request.call === 'state.store') stored.set(request.key, request.value);
      if (request.call !== 'state.load') return {};
      return stored.has(request.key) ? { value: stored.get(request.key) } : {};
    };
    await reused.run('await store("k", "from the first"); return await load("k")', { callState });
    await reused.reset();
    stored.clear();
    const second = await reused.run('return (await load("k")) ?? "nothing"', { callState });
    expect(second.value).toBe('"nothing"');
    expect(asked.filter((call) => call === 'state.load')).toHaveLength(2);
  });

  it('no files: the directory is emptied, a stop file the last script left included', async () => {
    const reused = reusedChild();
    await reused.run('return 1');
    writeFileSync(join(reused.child.dir, STOP_FILE_NAME), '');
    writeFileSync(join(reused.child.dir, 'left-behind'), 'x');
    await reused.reset();
    expect(readdirSync(reused.child.dir)).toEqual([]);
    // A computing script runs past its interrupt checks unstopped: no stop file was left for it.
    const second = await reused.run('let n = 0; for (let i = 0; i < 3e6; i++) n += i % 3; return n > 0');
    expect(second).toMatchObject({ status: 'finished', value: 'true' });
  });

  it('no random seed: each script draws its own', async () => {
    const draw = 'return [Math.random(), Math.random(), Math.random()]';
    const { before, after } = await afterReuse(draw, draw);
    expect(JSON.parse(after.value!)).not.toEqual(JSON.parse(before.value!));
  });

  it("no catalog: the next script has its own tools, not the last one's", async () => {
    const reused = reusedChild();
    await reused.run('return Object.keys(tools)', { tools: toolEntries('alpha') });
    await reused.reset();
    const second = await reused.run('return [Object.keys(tools), "alpha" in tools]', { tools: toolEntries('beta') });
    expect(second.error).toBeUndefined();
    expect(JSON.parse(second.value!)).toEqual([['beta'], false]);
  });
});

describe('a child is reused only with its engine intact', () => {
  it.each([
    ['finished', 'return 1', true],
    ['failed by its own error', 'throw new Error("x")', true],
    ['a syntax error', 'return {', true],
    ['out of memory', 'const a = []; for (;;) a.push("x".repeat(1e5) + a.length)', false],
    ["past the engine's stack", 'const f = (n) => f(n + 1) + 1; return f(0)', true],
  ])('%s: reusable %s', async (_, code, reusable) => {
    const reused = reusedChild();
    await reused.run(code);
    expect(reused.child.reusable).toBe(reusable);
  });

  it('not after a stop', async () => {
    const reused = reusedChild();
    const script = reused.start('for (;;) {}');
    script.stop('requested');
    await script.ended;
    expect(reused.child.reusable).toBe(false);
  });
});
