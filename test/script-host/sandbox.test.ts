import { afterEach, describe, expect, it } from 'vitest';
import { waitForNoChildren } from '../support/processes.js';
import { runScript } from '../support/scripts.js';

afterEach(async () => {
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

async function valueOf(code: string): Promise<unknown> {
  const ret = await runScript(code);
  expect(ret.status, ret.error).toBe('finished');
  return JSON.parse(ret.value!);
}

describe('inside a script', () => {
  it('has no process, require, WebAssembly, std or os; its fetch is a call to the server, refused where it lists no origin', async () => {
    const types = await valueOf(
      `return [typeof process, typeof require, typeof WebAssembly, typeof std, typeof os,
               await fetch("http://127.0.0.1:1/").then(() => "answered", (e) => e.name + " " + e.code)]`,
    );
    expect(types).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'ToolRefused FETCH_ORIGIN']);
  });

  it('reaches only its own global through Function and constructor chains', async () => {
    const reached = await valueOf(`
      const globals = [
        new Function("return this")(),
        await (async () => {}).constructor("return this")(),
        tools.echo.constructor("return this")(),
        console.log.constructor.constructor("return this")(),
        sleep.constructor("return this")(),
        (0, eval)("this"),
      ];
      return globals.map((g) => g === globalThis && typeof g.process === "undefined" && typeof g.require === "undefined");
    `);
    expect(reached).toEqual([true, true, true, true, true, true]);
  });

  it('reaches no host function from any global, prototype or property', async () => {
    const found = await valueOf(`
      const seen = new Set();
      const queue = [globalThis];
      const hostNamed = [];
      let functions = 0;
      while (queue.length > 0) {
        const item = queue.pop();
        if ((typeof item !== "object" && typeof item !== "function") || item === null || seen.has(item)) continue;
        seen.add(item);
        if (typeof item === "function") {
          functions++;
          if (String(item.name).startsWith("codemode")) hostNamed.push(item.name);
        }
        queue.push(Object.getPrototypeOf(item));
        for (const key of Reflect.ownKeys(item)) {
          const descriptor = Object.getOwnPropertyDescriptor(item, key);
          if (descriptor) queue.push(descriptor.value, descriptor.get, descriptor.set);
        }
      }
      return { functions, hostNamed };
    `);
    expect(found).toMatchObject({ hostNamed: [] });
    expect((found as { functions: number }).functions).toBeGreaterThan(300);
  });

  it('cannot import a module', async () => {
    const ret = await runScript('await import("node:fs")');
    expect(ret.status).toBe('failed');
  });

  it('draws different Math.random numbers from the next script', async () => {
    const [a, b] = await Promise.all([valueOf('return Math.random()'), valueOf('return Math.random()')]);
    expect(a).not.toBe(b);
  });
});
