/**
 * Scripts that go deep: QuickJS's own stack limit trips before the host's, so each gets a
 * RangeError it can catch (or, for a value, the string that says it can't become JSON), and goes on.
 */
import { describe, expect, it } from 'vitest';
import { checkNothingLeftBehind } from './nothing-left-behind.js';
import { runScript } from '../../support/scripts.js';

checkNothingLeftBehind();

/** Runs `deep` (which throws or returns) and reports how it ended, then proves the script goes on. */
const caught = (deep: string) => `
  let how;
  try { ${deep}; how = "no error" } catch (e) { how = e.name + ": " + e.message }
  const after = await tools.echo({ after: true });
  return { how, after: after.content[0].text };
`;

const OVERFLOW = { how: 'RangeError: Maximum call stack size exceeded', after: '{"after":true}' };

describe('a script that goes deep', () => {
  it.each([
    ['plain recursion', 'function f(n) { return f(n + 1) + 1 } f(0)'],
    [
      'recursion with many locals and arguments',
      'function f(a, b, c, d, e, g) { const x = [a, b], y = { c }, z = d + e + g; return f(a, b, c, d, e, g) + x.length + z } f(1, 2, 3, 4, 5, 6)',
    ],
    ['recursion through a getter', 'const o = { get x() { return this.x } }; o.x'],
    ['recursion through a Proxy trap', 'const p = new Proxy({}, { get(t, k, r) { return r[k] } }); p.x'],
    ['recursion through toString', 'const o = { toString() { return String(this) } }; String(o)'],
    ['recursion through Array.prototype.map', 'function f() { return [1].map(f) } f()'],
    ['recursion through a constructor', 'class A { constructor() { new A() } } new A()'],
    ['recursion through a sort comparator', 'function f() { [2, 1].sort(() => (f(), 0)) } f()'],
    ['recursion through an async function', 'await (async function f() { return f() })()'],
    ['JSON.parse of 100,000 nested arrays', 'JSON.parse("[".repeat(100000) + "]".repeat(100000))'],
    ['JSON.stringify of a 100,000-deep value', 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; JSON.stringify(a)'],
    ['a toJSON that recurses', 'const o = { toJSON() { return { a: this } } }; JSON.stringify(o)'],
    ['source nested 100,000 parentheses deep', 'eval("(".repeat(100000) + "1" + ")".repeat(100000))'],
    ['source nested 100,000 object literals deep', 'eval("({a:".repeat(100000) + "1" + "})".repeat(100000))'],
    ['a chain of 100,000 Proxies', 'let p = {}; for (let i = 0; i < 100000; i++) p = new Proxy(p, {}); p.x'],
    ['a chain of 3,000 bound functions', 'let f = () => 1; for (let i = 0; i < 3000; i++) f = f.bind(null); f()'],
    ['a 100,000-deep array printed as a string', 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; String(a)'],
  ])('catches %s as a RangeError and goes on', async (_name, deep) => {
    const ret = await runScript(caught(deep));
    expect(ret.status, ret.error).toBe('finished');
    const value = JSON.parse(ret.value!) as typeof OVERFLOW;
    expect(value).toEqual(OVERFLOW);
  });

  it('sends a 10,000-deep call argument, and goes on', async () => {
    // Regression: a 10,000-deep argument ran V8's stack out in the engine ("the engine failed").
    const ret = await runScript(caught('let a = {}; for (let i = 0; i < 10000; i++) a = { a }; await tools.echo({ a })'));
    expect(ret.status).toBe('finished');
    expect(JSON.parse(ret.value!)).toEqual({ how: 'no error', after: '{"after":true}' });
    expect(ret.calls.answered).toBe(2);
  });

  it('catches a 100,000-deep call argument as a TypeError, and nothing is sent', async () => {
    const ret = await runScript(caught('let a = {}; for (let i = 0; i < 100000; i++) a = { a }; await tools.echo({ a })'));
    expect(ret.status).toBe('finished');
    const value = JSON.parse(ret.value!) as { how: string };
    expect(value.how).toBe('TypeError: tools["echo"](args): args can\'t become JSON: Maximum call stack size exceeded');
    expect(ret.calls.answered).toBe(1);
  });

  it('catches a 100,000-deep notify payload as a TypeError', async () => {
    const ret = await runScript(caught('let a = {}; for (let i = 0; i < 100000; i++) a = { a }; notify(a)'));
    expect(JSON.parse(ret.value!)).toMatchObject({
      how: "TypeError: notify(payload): payload can't become JSON: Maximum call stack size exceeded",
    });
  });

  it("returns a 100,000-deep value as the string that says it can't become JSON", async () => {
    const ret = await runScript('let a = []; for (let i = 0; i < 100000; i++) a = [a]; return a');
    expect(ret.status).toBe('finished');
    expect(JSON.parse(ret.value!)).toBe("[the value can't become JSON: Maximum call stack size exceeded]");
  });

  it('prints a 100,000-deep value, cut at its printing depth', async () => {
    const ret = await runScript('let a = []; for (let i = 0; i < 100000; i++) a = [a]; console.log(a); return "printed"');
    expect(ret.status).toBe('finished');
    expect(ret.output.head).toMatch(/^\[\[\[\[.*\[Array\].*\]\]\]\]\n$/);
  });

  it('calls host functions a few frames short of its limit: the call is sent and the output printed', async () => {
    const ret = await runScript(`
      let depth = 0, deepest = 0;
      function g(n) {
        depth++; if (depth > deepest) deepest = depth;
        try { if (n === 0) { console.log("deep"); tools.echo({ deep: true }); text("!"); return } g(n - 1) } finally { depth-- }
      }
      try { g(Infinity) } catch (e) {}
      g(deepest - 30);
      return deepest;
    `);
    expect(ret.status, ret.error).toBe('finished');
    expect(Number(ret.value)).toBeGreaterThan(800);
    expect(ret.calls.answered).toBe(1);
    expect(ret.output.head).toBe('deep\n!');
  });

  it('reaches at least 800 frames of plain recursion before its RangeError', async () => {
    const ret = await runScript('let d = 0; function f() { d++; f() } try { f() } catch (e) {} return d');
    expect(Number(ret.value)).toBeGreaterThan(800);
  });

  it('ends as failed with its own message, and no host path, when it outruns the host through a path QuickJS does not check', async () => {
    // Iterator helpers nest without QuickJS's stack check: 30,000 deep runs V8's stack out first.
    const ret = await runScript(
      'let it = [1].values(); for (let i = 0; i < 30000; i++) it = it.map((x) => x); it.next(); return "survived"',
      {
        limits: { memoryMaxBytes: 256 * 1024 * 1024 },
      },
    );
    if (ret.status === 'finished') return; // an engine that checks this path too: nothing to see
    expect(ret.status).toBe('failed');
    expect(ret.error).toMatch(
      /^RangeError: (the script went deeper than the engine can follow|Maximum call stack size exceeded)/,
    );
    expect(ret.error).not.toMatch(/file:|\.js:|node:internal|wasm-function/);
  });
});
