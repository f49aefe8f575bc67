/**
 * Hostile scripts, reaching for the prelude's and the host's functions: through stack traces,
 * reflection, the API's own objects and callbacks. A pass means the script got nothing of theirs.
 */
import { describe, expect, it } from 'vitest';
import { checkNothingLeftBehind } from './nothing-left-behind.js';
import { ROOT } from '../../support/mcp-client.js';
import type { FetchCaller } from '../../../src/script-host/apis.js';
import { memoryResources, runScript } from '../../support/scripts.js';

checkNothingLeftBehind();

/** Every fetch answered at once, as the server's fetcher would answer a listed origin. */
const callFetch: FetchCaller = async (request) => ({
  status: 200,
  statusText: 'OK',
  url: request.url,
  redirected: false,
  headers: [['content-type', 'application/json']],
  bodyText: '{"a":1}',
});

async function valueOf(code: string): Promise<unknown> {
  const ret = await runScript(code, { callResource: memoryResources().callResource, callFetch });
  expect(ret.status, ret.error).toBe('finished');
  return JSON.parse(ret.value!);
}

/**
 * Walks everything reachable from `roots` (own properties, accessors, prototypes) and returns the
 * paths of the functions found. Runs inside the script; used both in a bare world and after the
 * API is used, so the difference is exactly what the API adds.
 */
const WALK = `
function walk(roots) {
  const seen = new Map();
  const queue = roots.map(([path, value]) => [path, value]);
  const functions = [];
  while (queue.length > 0) {
    const [path, item] = queue.shift();
    if ((typeof item !== "object" && typeof item !== "function") || item === null || seen.has(item)) continue;
    seen.set(item, path);
    if (typeof item === "function") functions.push(path);
    queue.push([path + ".__proto__", Object.getPrototypeOf(item)]);
    for (const key of Reflect.ownKeys(item)) {
      const descriptor = Object.getOwnPropertyDescriptor(item, key);
      if (!descriptor) continue;
      const name = path + "." + String(key);
      queue.push([name, descriptor.value], [name + "<get>", descriptor.get], [name + "<set>", descriptor.set]);
    }
  }
  return { functions, seen };
}
`;

/** The API a script is given: every function of it, by where it is found. */
const API = new Set([
  'tools.echo',
  'tools.big',
  'console.log',
  'console.info',
  'console.warn',
  'console.error',
  'console.debug',
  'text',
  'notify',
  'show',
  'setTimeout',
  'clearTimeout',
  'sleep',
  'describe',
  'searchTools',
  'resources.list',
  'resources.templates',
  'resources.read',
  'store',
  'load',
  'state.keys',
  'state.remove',
  'skills.list',
  'skills.describe',
  'skills.save',
  'skills.call',
  'ToolRefused',
  'TimeoutError',
  'ResultTooLarge',
  'Math.random',
  'fetch',
  'Headers',
  'Headers.prototype.append',
  'Headers.prototype.set',
  'Headers.prototype.delete',
  'Headers.prototype.get',
  'Headers.prototype.has',
  'Headers.prototype.forEach',
  'Headers.prototype.entries',
  'Headers.prototype.keys',
  'Headers.prototype.values',
  'Response',
  'Response.prototype.bodyUsed<get>',
  'Response.prototype.text',
  'Response.prototype.json',
  'Response.prototype.arrayBuffer',
  'Response.prototype.bytes',
  'Response.prototype.clone',
]);

describe('a hostile script reaching for prelude and host functions', () => {
  it('finds no function beyond what the global object reaches, walking everything the API hands out', async () => {
    const strangers = await valueOf(`${WALK}
      const res = await fetch("https://api.example/a", { method: "POST", body: "x", headers: { "x-a": "1" } });
      const headers = new Headers([["b", "2"]]);
      const results = [await tools.echo({ a: 1 }), searchTools("echo"), describe("echo"), ALL_TOOLS, show({ type: "text", text: "t" }),
        await resources.list(), await resources.templates(), await resources.read("test://a"), resources,
        res, res.headers, await res.clone().json(), await res.clone().arrayBuffer(), await res.clone().bytes(), await res.text(),
        headers, headers.entries(), headers.keys(), headers.values(), new Response("made", { headers }), fetch("https://api.example/b")];
      const thrown = [];
      for (const attempt of [() => tools.nope, () => describe("nope"), () => tools.echo(5), () => notify(1n), () => setTimeout(5), () => show(5), () => show({ type: "image", data: "!", mimeType: "x" }), () => resources.read(5), () => resources.read("x".repeat(5e6)), () => new Headers(5), () => new Response(5), () => res.text()]) {
        try { attempt() } catch (e) { thrown.push(e) }
      }
      try { await resources.read("test://refused") } catch (e) { thrown.push(e) }
      try { await fetch(5) } catch (e) { thrown.push(e) }
      try { await tools.echo({ toJSON() { throw new Error("inner") } }) } catch (e) { thrown.push(e) }
      // What a script reaches with no API at all: the global object, and an array's own iterator (Headers' entries() is one).
      const fromGlobal = walk([["globalThis", globalThis], ["[].values()", [].values()]]).seen;
      const handedOut = walk([["results", results], ["thrown", thrown], ["promise", tools.echo({})], ["read()", resources.read("test://b")], ["sleep()", sleep(0)]]).seen;
      return [...handedOut].filter(([item]) => typeof item === "function" && !fromGlobal.has(item)).map(([, path]) => path);
    `);
    expect(strangers).toEqual([]);
  });

  it('finds exactly the built-ins a bare QuickJS has, plus the API, from the global object', async () => {
    // The bare list comes from a fresh VM with no prelude: every path there, plus the API.
    const { QuickJS } = await import('quickjs-wasi');
    const { readFile } = await import('node:fs/promises');
    const vm = await QuickJS.create({ wasm: await readFile(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm'))) });
    const bare = vm.dump(vm.evalCode(`${WALK}; walk([["globalThis", globalThis]]).functions`)) as string[];
    vm.dispose();
    const withApi = (await valueOf(`${WALK}; return walk([["globalThis", globalThis]]).functions`)) as string[];
    const bareSet = new Set(bare);
    const added = withApi.filter((path) => !bareSet.has(path)).map((path) => path.replace(/^globalThis\./, ''));
    const unexpected = added.filter((path) => !API.has(path) && !/^(ToolRefused|TimeoutError|ResultTooLarge)\./.test(path));
    expect(unexpected).toEqual([]);
  });

  it('cannot install Error.prepareStackTrace: assigning it changes nothing, and stacks stay strings', async () => {
    expect(
      await valueOf(`
        const before = Object.getOwnPropertyDescriptor(Error, "prepareStackTrace");
        Error.prepareStackTrace = (error, sites) => sites;
        let redefined;
        try { Object.defineProperty(Error, "prepareStackTrace", { value: () => 1 }); redefined = "yes" } catch (e) { redefined = e.name }
        let deleted = delete Error.prepareStackTrace;
        const holder = {};
        Error.captureStackTrace(holder);
        return [before.writable, before.configurable, typeof Error.prepareStackTrace, redefined, deleted,
          typeof new Error("x").stack, typeof holder.stack];
      `),
    ).toEqual([false, false, 'undefined', 'TypeError', false, 'string', 'string']);
  });

  it('gets no CallSite through a stack captured inside the prelude (a toJSON of call arguments)', async () => {
    const [stack, sites] = (await valueOf(`
      Error.prepareStackTrace = (error, sites) => sites;
      let stack, sites;
      await tools.echo({ toJSON() { const e = new Error("x"); stack = e.stack; sites = typeof e.stack; return {}; } });
      return [stack, sites];
    `)) as [string, string];
    expect(sites).toBe('string');
    expect(stack).toContain('argumentsJson');
    expect(stack).not.toMatch(/prelude:|\.js:|file:|codemode\./);
  });

  it('gets no caller from a callback the prelude calls (a timer, a getter printed by console.log)', async () => {
    expect(
      await valueOf(`
        const callers = [];
        const probe = function probe() { try { callers.push(typeof probe.caller) } catch (e) { callers.push(e.name) }
          try { callers.push(typeof arguments.callee.caller) } catch (e) { callers.push(e.name) } };
        setTimeout(probe, 0);
        await sleep(5);
        console.log({ get a() { probe(); return 1 } });
        return callers;
      `),
    ).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
  });

  it("prints the API's functions as native code: no prelude source", async () => {
    const sources = (await valueOf(`
      return [console.log, text, notify, show, setTimeout, sleep, describe, searchTools, tools.echo, Math.random, ToolRefused]
        .map((fn) => Function.prototype.toString.call(fn));
    `)) as string[];
    for (const source of sources) expect(source).toMatch(/\[native code\]/);
  });

  it('does not get the handler or target behind tools, nor a way to call a tool it was not given', async () => {
    expect(
      await valueOf(`
        const out = [];
        out.push(Object.keys(tools).join(","));
        out.push(typeof Object.getOwnPropertyDescriptor(tools, "echo").value);
        Object.prototype.has = function () { out.push("trap on Object.prototype ran"); return true };
        Object.prototype.set = function () { out.push("set trap on Object.prototype ran"); return true };
        out.push("nope" in tools);
        tools.nope = 1;
        delete Object.prototype.has; delete Object.prototype.set;
        try { tools.nope({}) } catch (e) { out.push(e.message.split(".")[0]) }
        return out;
      `),
    ).toEqual(['echo', 'function', false, 'tools["nope"] is not a tool']);
  });

  it('gets no prelude object as the receiver of a getter or setter on Object.prototype, whatever the name', async () => {
    // Every identifier the bundle uses as a property name gets a getter and a setter on
    // Object.prototype, Array.prototype, Function.prototype, Map.prototype, Set.prototype and
    // Promise.prototype that record any receiver the script did not make.
    const { readFileSync } = await import('node:fs');
    const bundle = readFileSync(new URL('../../../dist/prelude.js', import.meta.url), 'utf8');
    // Not `then` (the prelude names it to capture Promise.prototype.then): the language looks it up
    // on every object a promise is resolved with, a tool's result included, before the script can
    // mark it; the prelude's own objects that resolve a promise have no prototype (blank()).
    const names = [...new Set([...bundle.matchAll(/\.([A-Za-z_$][\w$]*)/g)].map((match) => match[1]!))].filter(
      (name) => !['length', 'prototype', 'constructor', '__proto__', 'then'].includes(name),
    );
    expect(names.length).toBeGreaterThan(100);
    const leaks = await valueOf(`
      const names = ${JSON.stringify(names)};
      const mine = new WeakSet();
      const leaks = [];
      let recording = true;
      const protos = [Object.prototype, Array.prototype, Function.prototype, Map.prototype, Set.prototype, Promise.prototype];
      for (const proto of protos) for (const name of names) {
        if (Object.getOwnPropertyDescriptor(proto, name)) continue;
        const stranger = (self) => recording && (typeof self === "object" || typeof self === "function") && self !== null && !mine.has(self) && self !== globalThis;
        const descriptor = Object.create(null);
        descriptor.configurable = true;
        descriptor.get = function () { if (stranger(this)) leaks.push("get " + name); return undefined; };
        descriptor.set = function (v) { if (stranger(this)) leaks.push("set " + name); };
        Object.defineProperty(proto, name, descriptor);
      }
      const mark = (v) => { if (typeof v === "object" && v !== null) mine.add(v); return v; };
      const args = mark({ a: mark([1, 2]), b: mark({ c: "d" }) });
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => tools.echo(args)));
      results.forEach(mark);
      results.forEach((r) => { mark(r.content); r.content.forEach(mark) });
      console.log(args, mark(new Map([[1, 2]])), mark(new Set([3])), mark(new Date(0)), 5n, Symbol("s"), mark(() => 1));
      notify(args);
      show(mark({ content: mark([mark({ type: "text", text: "t" }), mark({ type: "resource", resource: mark({ uri: "a:b", text: "c" }) })]) }));
      const timer = setTimeout(() => {}, 10); clearTimeout(timer);
      await sleep(1);
      mark(searchTools("echo")).forEach(mark);
      describe("echo");
      try { tools.missing } catch (e) { mark(e) }
      recording = false;
      for (const proto of protos) for (const name of names) {
        const d = Object.getOwnPropertyDescriptor(proto, name);
        if (d && d.configurable && d.get) delete proto[name];
      }
      return leaks;
    `);
    expect(leaks).toEqual([]);
  });

  it('finds no host path in any string the API hands it', async () => {
    const strings = (await valueOf(`
      const out = [];
      const grab = (fn) => { try { fn() } catch (e) { out.push(String(e), String(e.stack)) } };
      grab(() => tools.nope);
      grab(() => describe(5));
      grab(() => tools.echo(5));
      grab(() => notify(5n));
      grab(() => setTimeout(5));
      grab(() => show({ type: "video" }));
      grab(() => show({ type: "image", data: "!", mimeType: "x" }));
      grab(() => { function f() { f() } f() });
      grab(() => JSON.parse("[".repeat(100000)));
      try { await tools.echo({ toJSON() { throw new Error("x") } }) } catch (e) { out.push(String(e), e.stack) }
      out.push(...[console.log, tools.echo, sleep].map(String));
      out.push(new Error("plain").stack);
      return out;
    `)) as string[];
    const text = strings.join('\n');
    expect(text).not.toContain(ROOT);
    expect(text).not.toMatch(/file:|node_modules|quickjs-wasi|dist\/|\.js:\d|node:internal/);
  });
});
