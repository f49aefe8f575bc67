/**
 * Hostile scripts playing with the API's edges: closing the wrapper early, re-entering the API
 * from inside its own callbacks, odd arguments. Each ends as the script chose, never as crashed or
 * "the engine failed".
 */
import { describe, expect, it } from 'vitest';
import { checkNothingLeftBehind } from './nothing-left-behind.js';
import { runScript, startScript } from '../../support/scripts.js';

checkNothingLeftBehind();

describe('a script that closes the function it runs in', () => {
  it('runs its early code in a world already set up, and gains nothing by it', async () => {
    const ret = await runScript(
      'return 1 }); globalThis.seen = typeof tools + " " + typeof ALL_TOOLS; (async function () { return globalThis.seen',
    );
    expect(ret.status).toBe('finished');
    expect(ret.value).toBe('"object object"');
  });

  it('fails with a message saying what it did when what is left is not an async function body', async () => {
    const ret = await runScript('}); 5; (function () {');
    expect(ret.status).toBe('failed');
    expect(ret.error).toMatch(/^SyntaxError: the script closed the function it runs in/);
  });

  it('is stopped while its early code loops', async () => {
    const script = startScript('}); for (;;) {} (async function () {');
    await script.observe(300);
    script.stop('requested');
    await script.ended;
    expect((await script.observe(0)).status).toBe('stopped');
  });
});

describe('a script that re-enters the API from its own callbacks', () => {
  it.each([
    [
      "a call made inside the toJSON of another call's arguments",
      'const inner = []; const outer = await tools.echo({ toJSON() { inner.push(tools.echo({ inner: true })); return { outer: true } } }); return [outer.content[0].text, (await inner[0]).content[0].text]',
      ['{"outer":true}', '{"inner":true}'],
    ],
    [
      'a notify and a print inside a getter printed by console.log',
      'console.log({ get a() { notify({ from: "getter" }); text("inside "); return 1 } }); return "done"',
      'done',
    ],
    [
      'a timer callback that throws: printed as uncaught, and the script goes on',
      'setTimeout(() => { throw new TypeError("in a timer") }, 0); await sleep(5); return "after"',
      'after',
    ],
    [
      'a sleep started from a timer callback',
      // Polled rather than raced against a fixed sleep: a loaded machine may run the callback late.
      'let woke = false; setTimeout(async () => { await sleep(1); woke = true }, 0); while (!woke) await sleep(5); return woke',
      true,
    ],
    [
      'Object.prototype.then, making every result a thenable',
      'Object.prototype.then = function (resolve) { delete Object.prototype.then; resolve(42) }; return await tools.echo({})',
      42,
    ],
    [
      'a key for tools that converts to a tool name',
      'return (await tools[{ toString() { return "echo" } }]({ k: 1 })).content[0].text',
      '{"k":1}',
    ],
    [
      "describe and searchTools given values that can't become strings",
      'const bad = new Proxy({}, { get() { throw new Error("no") } }); const out = []; try { describe(bad) } catch (e) { out.push(e.name) } try { searchTools(bad) } catch (e) { out.push(e.name) } out.push(searchTools(Symbol.iterator).length); return out',
      ['TypeError', 0],
    ],
    [
      'setTimeout with a callback that is not a function, and clearTimeout with anything',
      'const out = []; try { setTimeout("code", 1) } catch (e) { out.push(e.name) } clearTimeout({ valueOf() { throw new Error("no") } }); clearTimeout(); return out',
      ['TypeError'],
    ],
    [
      'a WeakRef and a FinalizationRegistry of its own',
      'const registry = new FinalizationRegistry(() => {}); const target = {}; registry.register(target, 1); const ref = new WeakRef(target); return typeof ref.deref()',
      'object',
    ],
  ])('%s', async (_name, code, expected) => {
    const ret = await runScript(code);
    expect(ret.status, ret.error).toBe('finished');
    expect(JSON.parse(ret.value!)).toEqual(expected);
  });

  it('prints an uncaught timer error with its own frames only', async () => {
    const ret = await runScript('setTimeout(() => { throw new TypeError("in a timer") }, 0); await sleep(5)');
    expect(ret.output.head).toMatch(/^Uncaught TypeError: in a timer\n {4}at <anonymous> \(script:1:\d+\)\n$/);
  });

  it('prints an unhandled rejection at its end, once', async () => {
    const ret = await runScript('Promise.reject(new RangeError("nobody caught me")); return 1');
    expect(ret.status).toBe('finished');
    expect(ret.output.head).toMatch(/^Uncaught \(in promise\) RangeError: nobody caught me\n/);
  });
});
