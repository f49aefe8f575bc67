/**
 * Hostile scripts that replace the built-ins: each replacement changes only the script's own
 * results. The prelude never calls what the script put in place, and keeps working.
 */
import { describe, expect, it } from 'vitest';
import { checkNothingLeftBehind } from './nothing-left-behind.js';
import type { ToolCaller } from '../../../src/script-host/apis.js';
import { memoryResources, runScript } from '../../support/scripts.js';

checkNothingLeftBehind();

/** A tool that answers after a turn, so calls pile up past the 16 in flight. */
const slowEcho: ToolCaller = async (_name, args) => {
  await new Promise((resolve) => setTimeout(resolve, 2));
  return { content: [{ type: 'text', text: JSON.stringify(args) }] };
};

/**
 * Every API path the prelude has (written without the built-ins the cases below replace): calls and resource reads sent and queued, results, console of every kind of
 * value, text, notify, timers, describe, searchTools, a missing tool, and the value. Its answer
 * is the same whatever the world does to built-ins it does not itself use.
 */
const WORKLOAD = `
  const sums = [];
  const calls = [];
  for (let i = 0; i < 40; i++) calls[i] = tools.echo({ i });
  for (let i = 0; i < 40; i++) sums[i] = (await calls[i]).content[0].text;
  console.log({ a: [1, "x", null] }, new Map([[1, 2]]), new Set([3]), new Date(0), 5n, Symbol("s"), function named() {}, new Error("shown"));
  text("t");
  notify({ n: 1 });
  const cleared = setTimeout(() => {}, 5); clearTimeout(cleared);
  let fired = 0; setTimeout((a, b) => { fired = a + b }, 1, 2, 3);
  await sleep(3);
  const hits = searchTools("echo");
  let missing = "";
  try { tools.ecko } catch (e) { missing = e.message }
  const reads = [];
  for (let i = 0; i < 20; i++) reads[i] = resources.read("test://r" + i);
  const read = (await reads[19]).contents[0].text;
  let badUri = "";
  try { resources.read(5) } catch (e) { badUri = e.message }
  const listed = (await resources.list()).length + (await resources.templates()).length;
  return { n: sums.length, last: sums[39], fired, hit: hits[0].name, declaration: describe("echo").length > 0, missing, read, badUri, listed };
`;

const EXPECTED = {
  n: 40,
  last: '{"i":39}',
  fired: 5,
  hit: 'echo',
  declaration: true,
  missing: 'tools["ecko"] is not a tool. Closest: "echo". ALL_TOOLS lists every tool.',
  read: 'read test://r19',
  badUri: 'resources.read(uri): uri must be a string, not number',
  listed: 3,
};

async function runWith(setup: string): Promise<{ value: unknown; output: string; calledFromPrelude: string[] }> {
  const ret = await runScript(
    `${setup}\nconst answer = await (async () => {${WORKLOAD}})();\nreturn { answer, calledFromPrelude: globalThis.calledFromPrelude ?? [] };`,
    {
      callTool: slowEcho,
      callResource: memoryResources().callResource,
    },
  );
  expect(ret.status, ret.error).toBe('finished');
  const { answer, calledFromPrelude } = JSON.parse(ret.value!) as { answer: unknown; calledFromPrelude: string[] };
  return { value: answer, output: ret.output.head, calledFromPrelude };
}

/**
 * Wraps every method and accessor of every built-in prototype and namespace with a recorder
 * that notes when its caller is the prelude (a frame with no position, `<null>:0:1`). The
 * recorder uses only what it took before wrapping.
 */
const INSTRUMENT_ALL = `
  globalThis.calledFromPrelude = [];
  const record = globalThis.calledFromPrelude;
  const apply = Reflect.apply, ErrorCtor = Error, split = String.prototype.split, includes = String.prototype.includes;
  const push = Array.prototype.push, getDesc = Object.getOwnPropertyDescriptor, define = Object.defineProperty;
  const ownKeys = Reflect.ownKeys, create = Object.create;
  let inside = false;
  function callerIsPrelude() {
    if (inside) return false;
    inside = true;
    try {
      const lines = apply(split, new ErrorCtor().stack, ["\\n"]);
      // lines[0] is this function, lines[1] the wrapper; the first frame past native ones is the caller.
      for (let i = 2; i < lines.length; i++) {
        if (apply(includes, lines[i], ["(native)"])) continue;
        return apply(includes, lines[i], ["<null>"]);
      }
      return false;
    } finally { inside = false; }
  }
  function wrap(owner, key, label) {
    const d = getDesc(owner, key);
    if (!d || !d.configurable) return;
    const nd = create(null);
    nd.configurable = true; nd.enumerable = d.enumerable;
    if (typeof d.value === "function" && key !== "constructor") {
      const original = d.value;
      nd.writable = true;
      nd.value = { [key]: function (...args) { if (callerIsPrelude()) apply(push, record, [label]); return new.target ? Reflect.construct(original, args, new.target) : apply(original, this, args); } }[key];
    } else if (d.get) {
      const getter = d.get, setter = d.set;
      nd.get = function () { if (callerIsPrelude()) apply(push, record, [label + "<get>"]); return apply(getter, this, []); };
      if (setter) nd.set = function (v) { if (callerIsPrelude()) apply(push, record, [label + "<set>"]); return apply(setter, this, [v]); };
    } else return;
    define(owner, key, nd);
  }
  const owners = [
    ["Object", Object], ["Object.prototype", Object.prototype], ["Function.prototype", Function.prototype],
    ["Array", Array], ["Array.prototype", Array.prototype], ["ArrayIterator", Object.getPrototypeOf([][Symbol.iterator]())],
    ["String", String], ["String.prototype", String.prototype], ["Number", Number], ["Number.prototype", Number.prototype],
    ["Symbol.prototype", Symbol.prototype], ["Map.prototype", Map.prototype], ["Set.prototype", Set.prototype],
    ["MapIterator", Object.getPrototypeOf(new Map().entries())], ["SetIterator", Object.getPrototypeOf(new Set().values())],
    ["Promise", Promise], ["Promise.prototype", Promise.prototype], ["JSON", JSON], ["Math", Math], ["Reflect", Reflect],
    ["Error", Error], ["Error.prototype", Error.prototype], ["Date.prototype", Date.prototype], ["RegExp.prototype", RegExp.prototype],
    ["Iterator.prototype", Iterator.prototype], ["BigInt.prototype", BigInt.prototype], ["Boolean.prototype", Boolean.prototype],
  ];
  for (const [name, owner] of owners) for (const key of ownKeys(owner)) {
    if (name === "Math" && key === "random") continue;
    wrap(owner, key, name + "." + String(key));
  }
`;

describe('a hostile script that replaces built-ins', () => {
  it('runs the whole API the same with every built-in method wrapped, and the prelude calls none of them', async () => {
    const plain = await runWith('');
    expect(plain.value).toEqual(EXPECTED);
    const wrapped = await runWith(INSTRUMENT_ALL);
    // The one built-in the prelude runs: the stack getter of an error the script made or was handed,
    // read as the script's own value when an error is printed.
    expect(wrapped.calledFromPrelude.filter((label) => label !== 'Error.prototype.stack<get>')).toEqual([]);
    expect(wrapped.value).toEqual(EXPECTED);
    const lineless = (output: string) => output.replace(/script:\d+/g, 'script:N');
    expect(lineless(wrapped.output)).toBe(lineless(plain.output));
  });

  it.each([
    ['JSON.stringify', 'JSON.stringify = () => "{}"'],
    ['JSON.parse', 'JSON.parse = () => ({ content: [{ text: "forged" }] })'],
    [
      'Promise.prototype.then',
      'const then = Promise.prototype.then; Promise.prototype.then = function (f, r) { return then.call(this, f, r) }; globalThis.x = 1',
    ],
    ['the Promise global', 'globalThis.Promise = function () { throw new Error("not this one") }'],
    ['Array.prototype.push', 'Array.prototype.push = function () { throw new Error("no push") }'],
    ['the array iterator', 'Object.getPrototypeOf([][Symbol.iterator]()).next = function () { return { done: true } }'],
    ['Map.prototype.get and set', 'Map.prototype.get = () => undefined; Map.prototype.set = function () { return this }'],
    ['Set.prototype.has', 'Set.prototype.has = () => true'],
    ['String.prototype.slice and indexOf', 'String.prototype.slice = () => "sliced"; String.prototype.indexOf = () => -1'],
    [
      'Function.prototype.call, apply and bind',
      'Function.prototype.call = Function.prototype.apply = Function.prototype.bind = () => { throw new Error("no") }',
    ],
    ['Reflect.apply and Reflect.construct', 'Reflect.apply = Reflect.construct = () => { throw new Error("no") }'],
    [
      'Object.keys, defineProperty, freeze, create',
      'Object.keys = () => []; Object.defineProperty = () => { throw new Error("no") }; Object.freeze = (o) => o; Object.create = () => ({})',
    ],
    [
      'Error, TypeError and RangeError',
      'globalThis.TypeError = globalThis.RangeError = globalThis.Error = function () { return { forged: true } }',
    ],
    [
      'Symbol.hasInstance on Error',
      'Object.defineProperty(Error, Symbol.hasInstance, { value: () => { throw new Error("no") } })',
    ],
    ['Error.isError', 'Error.isError = () => { throw new Error("no") }'],
    [
      'Object.prototype setters for resolve and reject',
      'Object.defineProperty(Object.prototype, "resolve", { set(v) { globalThis.stolen = v } }); Object.defineProperty(Object.prototype, "reject", { set(v) { globalThis.stolen = v } })',
    ],
  ])('keeps the API working when the script replaces %s', async (_name, setup) => {
    const { value } = await runWith(`${setup};`);
    // The workload uses none of these itself: whatever differs would be the prelude's doing.
    expect(value).toEqual(EXPECTED);
  });

  it("ends with the script's own JSON when it sets Object.prototype.toJSON: never a broken frame", async () => {
    // Regression: the prelude's ending object inherited the toJSON, and the frame did not decode (crashed).
    const ret = await runScript('await tools.echo({ a: 1 }); Object.prototype.toJSON = () => "x"; return { a: 1 }');
    expect(ret.status).toBe('finished');
    expect(ret.value).toBe('"x"');
  });

  it('gets a TypeError it can catch when its toJSON makes the arguments something other than an object', async () => {
    const ret = await runScript(`
      const out = [];
      for (const args of [{ toJSON() { return [1, 2] } }, { toJSON() { return undefined } }, { toJSON() { return "s" } }]) {
        try { await tools.echo(args); out.push("sent") } catch (e) { out.push(e.name + ": " + e.message) }
      }
      return out;
    `);
    expect(ret.status).toBe('finished');
    expect(JSON.parse(ret.value!)).toEqual([
      'TypeError: tools["echo"](args): args must become a JSON object, but it became JSON that is not an object; nothing was sent',
      'TypeError: tools["echo"](args): args must become a JSON object, but its toJSON gave undefined; nothing was sent',
      'TypeError: tools["echo"](args): args must become a JSON object, but it became JSON that is not an object; nothing was sent',
    ]);
    expect(ret.calls.answered).toBe(0);
  });

  it('gets a TypeError for a getter that throws, a revoked Proxy, and a Proxy whose trap throws, in its arguments', async () => {
    const ret = await runScript(`
      const { proxy, revoke } = Proxy.revocable({}, {}); revoke();
      const out = [];
      for (const args of [
        { get bad() { throw new Error("getter says no") } },
        { inner: proxy },
        new Proxy({}, { ownKeys() { throw new RangeError("trap says no") } }),
      ]) {
        try { await tools.echo(args); out.push("sent") } catch (e) { out.push(e.name + ": " + e.message) }
      }
      return out;
    `);
    expect(ret.status, ret.error).toBe('finished');
    const out = JSON.parse(ret.value!) as string[];
    expect(out[0]).toBe('TypeError: tools["echo"](args): args can\'t become JSON: getter says no');
    expect(out[1]).toMatch(/^TypeError: tools\["echo"\]\(args\): args can't become JSON: .*revoked/);
    expect(out[2]).toBe('TypeError: tools["echo"](args): args can\'t become JSON: trap says no');
  });

  it("gets a TypeError for a notify payload that can't become JSON, and the string that says so for such a value", async () => {
    const ret = await runScript(`
      const out = [];
      for (const payload of [{ toJSON() { return undefined } }, { get x() { throw new Error("no") } }, 5n]) {
        try { notify(payload); out.push("sent") } catch (e) { out.push(e.name) }
      }
      return { out, value: { toJSON() { return undefined } } };
    `);
    expect(ret.status).toBe('finished');
    expect(JSON.parse(ret.value!)).toEqual({ out: ['TypeError', 'TypeError', 'TypeError'] });
  });

  it("returns the string that says so when its value's toJSON gives undefined or throws", async () => {
    const undefinedValue = await runScript('return { toJSON() { return undefined } }');
    expect(undefinedValue.status).toBe('finished');
    expect(JSON.parse(undefinedValue.value!)).toBe("[the value can't become JSON: it is a object]");
    const throwing = await runScript('return { toJSON() { throw new Error("nope") } }');
    expect(throwing.status).toBe('finished');
    expect(JSON.parse(throwing.value!)).toBe("[the value can't become JSON: nope]");
  });

  it('keeps call results exact: own __proto__ and constructor keys survive, and no prototype is polluted', async () => {
    const forged: ToolCaller = async () =>
      JSON.parse('{"content":[],"structuredContent":{"__proto__":{"polluted":1},"constructor":5,"a":1}}') as never;
    const ret = await runScript(
      'const r = await tools.echo({}); const s = r.structuredContent;' +
        'return [Object.keys(s), Object.getPrototypeOf(s) === Object.prototype, ({}).polluted === undefined, s.constructor];',
      { callTool: forged },
    );
    expect(JSON.parse(ret.value!)).toEqual([['__proto__', 'constructor', 'a'], true, true, 5]);
  });
});
