/**
 * Hostile scripts against the `resources` API: URIs that aren't strings or run code when read,
 * a URI past the argument cap, many reads at once, and attempts to change the API itself. Each
 * gets a specific error with nothing sent, and the script keeps its places and its world.
 */
import { describe, expect, it } from 'vitest';
import { checkNothingLeftBehind } from './nothing-left-behind.js';
import type { ToolCaller } from '../../../src/script-host/apis.js';
import { memoryResources, runScript } from '../../support/scripts.js';

checkNothingLeftBehind();

async function valueOf(code: string, resources = memoryResources()): Promise<unknown> {
  const ret = await runScript(code, { callResource: resources.callResource });
  expect(ret.status, ret.error).toBe('finished');
  return JSON.parse(ret.value!);
}

describe('a hostile script calling resources.read', () => {
  it('gets a TypeError for every uri that is not a string, runs none of its code, and sends nothing', async () => {
    const resources = memoryResources();
    const value = await valueOf(
      `const ran = [];
const uris = [5, undefined, null, Symbol("s"), 10n, ["test://a"],
  { toString() { ran.push("toString"); return "test://a" } },
  { get uri() { ran.push("getter"); return "test://a" }, [Symbol.toPrimitive]() { ran.push("toPrimitive"); return "test://a" } },
  new Proxy({}, { get(_t, key) { ran.push("proxy " + String(key)); return () => "test://a" } }),
  new String("test://a")];
const out = [];
for (const uri of uris) { try { resources.read(uri); out.push("sent") } catch (e) { out.push(e.name + ": " + e.message) } }
return [out, ran]`,
      resources,
    );
    const [out, ran] = value as [string[], string[]];
    expect(ran).toEqual([]);
    expect(out).toEqual([
      'TypeError: resources.read(uri): uri must be a string, not number',
      'TypeError: resources.read(uri): uri must be a string, not undefined',
      'TypeError: resources.read(uri): uri must be a string, not null',
      'TypeError: resources.read(uri): uri must be a string, not symbol',
      'TypeError: resources.read(uri): uri must be a string, not bigint',
      'TypeError: resources.read(uri): uri must be a string, not object',
      'TypeError: resources.read(uri): uri must be a string, not object',
      'TypeError: resources.read(uri): uri must be a string, not object',
      'TypeError: resources.read(uri): uri must be a string, not object',
      'TypeError: resources.read(uri): uri must be a string, not object',
    ]);
    expect(resources.seen).toEqual([]);
  });

  it('gets a RangeError for a uri past the argument cap, with nothing sent, and reads on afterwards', async () => {
    const resources = memoryResources();
    const value = await valueOf(
      `let error;
try { resources.read("test://" + "x".repeat(5 * 1024 * 1024)) } catch (e) { error = e.name + ": " + e.message }
return [error, (await resources.read("test://a")).contents[0].text]`,
      resources,
    );
    expect(value).toEqual([
      expect.stringMatching(
        /^RangeError: resources\.read\(uri\): args are 524\d{4} bytes of JSON, past the cap of 4194304; nothing was sent$/,
      ),
      'read test://a',
    ]);
    expect(resources.seen.map(({ uri }) => uri)).toEqual(['test://a']);
  });

  it('keeps at most 16 calls out, tools and reads together: 40 reads beside 10 held tool calls all settle', async () => {
    const resources = memoryResources();
    let tools = 0;
    let reads = 0;
    let peak = 0;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    // Everything is held until 16 calls are out at once (10 tools and 6 reads, if the cap is shared);
    // then all flow, and the count must never pass 16. A cap not shared would let 50 out; a lower one
    // would never release, and the script would not finish.
    const out = (): void => {
      peak = Math.max(peak, tools + reads);
      if (tools + reads === 16) release();
    };
    const heldTool: ToolCaller = async () => {
      tools++;
      out();
      await released;
      tools--;
      return { content: [{ type: 'text', text: 'held' }] };
    };
    const heldRead: typeof resources.callResource = async (request, signal) => {
      reads++;
      out();
      await released;
      try {
        return await resources.callResource(request, signal);
      } finally {
        reads--;
      }
    };
    const ret = await runScript(
      `const held = Array.from({ length: 10 }, () => tools.echo({}));
const reads = await Promise.all(Array.from({ length: 40 }, (_, i) => resources.read("test://r" + i)));
await Promise.all(held);
return reads.map((r) => r.contents[0].text).filter((text, i) => text === "read test://r" + i).length`,
      { callTool: heldTool, callResource: heldRead },
    );
    expect(ret.status, ret.error).toBe('finished');
    expect(ret.value).toBe('40');
    expect(peak).toBe(16);
  });

  it('cannot replace or extend the resources API, nor reach anything through it', async () => {
    const value = await valueOf(`
const before = resources.read;
const attempts = [];
for (const attempt of [() => { resources.read = () => 1 }, () => { resources.extra = 1 }, () => { delete resources.list },
  () => Object.defineProperty(resources, "read", { value: 1 }), () => Object.setPrototypeOf(resources, {})]) {
  try { attempt(); attempts.push("done") } catch (e) { attempts.push(e.name) }
}
return [Object.isFrozen(resources), resources.read === before, Object.getPrototypeOf(resources), attempts,
  (await resources.list()).length, (await resources.templates())[0].uriTemplate]`);
    // Sloppy-mode assignments to a frozen object do nothing without throwing; defineProperty throws.
    expect(value).toEqual([true, true, null, ['done', 'done', 'done', 'TypeError', 'TypeError'], 2, 'test://item/{id}']);
  });

  it('gets ToolRefused for a refused read, and the record counts it as refused, not answered', async () => {
    const ret = await runScript(
      'try { await resources.read("test://refused") } catch (e) { return [e.name, e instanceof ToolRefused, e.message] }',
      { callResource: memoryResources().callResource },
    );
    expect(JSON.parse(ret.value!)).toEqual([
      'ToolRefused',
      true,
      'RESOURCE_UNKNOWN: resources.read("test://refused") was refused: no upstream lists it. Nothing was sent.',
    ]);
    expect(ret.calls).toMatchObject({ answered: 0, refused: 1 });
  });
});
