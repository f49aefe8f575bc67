/**
 * `store`/`load` in a script's own child: what the prelude sends, what the script gets back, and
 * how a refusal, a backend's failure and a server without state reach it. The state itself is a
 * Map here; the backends have their own tests (test/state/).
 */
import { describe, expect, it } from 'vitest';
import { RefusedError } from '../../src/support/errors.js';
import type { StateCaller, StateRequest } from '../../src/script-host/apis.js';
import { runScript } from '../support/scripts.js';

class LimitError extends RefusedError {
  override readonly name = 'LimitError';
  readonly code = 'STATE_LIMIT';
}

/** One principal's state in a Map of JSON text, and every request as the server got it. */
function mapState(): { readonly callState: StateCaller; readonly seen: StateRequest[]; readonly values: Map<string, string> } {
  const values = new Map<string, string>();
  const seen: StateRequest[] = [];
  const callState: StateCaller = async (request) => {
    seen.push(request);
    switch (request.call) {
      case 'state.load': {
        const json = values.get(request.key);
        return json === undefined ? {} : { value: JSON.parse(json) as unknown };
      }
      case 'state.store':
        if (request.key === 'too-big') throw new LimitError('STATE_LIMIT: the value is past stateValueMaxBytes');
        if (request.key === 'broken') throw new Error('EACCES: permission denied');
        values.set(request.key, JSON.stringify(request.value));
        return null;
      case 'state.keys':
        return [...values.keys()].filter((key) => key.startsWith(request.prefix ?? '')).sort();
      case 'state.remove':
        return values.delete(request.key);
    }
  };
  return { callState, seen, values };
}

async function valueOf(code: string, callState?: StateCaller): Promise<unknown> {
  const ret = await runScript(code, callState ? { callState } : {});
  expect(ret.status, ret.error).toBe('finished');
  return ret.value === undefined ? undefined : JSON.parse(ret.value);
}

describe('store and load in a script', () => {
  // Regression: the ending counted store and load among the answered tool calls.
  it('are not counted among the calls the ending names: only the tool call is', async () => {
    const state = mapState();
    const ret = await runScript('await store("k", 1); await load("k"); await state.keys(); await tools.echo({}); return 1', {
      callState: state.callState,
    });
    expect(ret.status, ret.error).toBe('finished');
    expect(ret.calls).toMatchObject({ answered: 1, refused: 0, unseen: [] });
  });

  it('stores JSON values and loads copies; an absent key loads as undefined; keys and remove answer from the state', async () => {
    const state = mapState();
    const value = await valueOf(
      `const notes = { items: [1, "two", { three: null }], when: "today" };
       await store("notes", notes);
       notes.items.push("changed after the store");
       await state.store("count", 3, { ttlMs: 60000 });
       const back = await load("notes");
       back.items.push("changed after the load");
       return {
         back: await state.load("notes"),
         count: await load("count"),
         absent: await load("nothing here"),
         keys: await state.keys(),
         prefixed: await state.keys("no"),
         removed: await state.remove("count"),
         removedAgain: await state.remove("count"),
         stored: await store("x", 1),
       };`,
      state.callState,
    );
    expect(value).toEqual({
      back: { items: [1, 'two', { three: null }], when: 'today' },
      count: 3,
      keys: ['count', 'notes'],
      prefixed: ['notes'],
      removed: true,
      removedAgain: false,
    });
    expect(state.seen.map((request) => request.label)).toEqual([
      'store("notes", value)',
      'store("count", value)',
      'load("notes")',
      'load("notes")',
      'load("count")',
      'load("nothing here")',
      'state.keys()',
      'state.keys("no")',
      'state.remove("count")',
      'state.remove("count")',
      'store("x", value)',
    ]);
    expect(state.seen[1]).toMatchObject({ call: 'state.store', key: 'count', value: 3, ttlMs: 60000 });
    expect(state.seen[0]).not.toHaveProperty('ttlMs');
  });

  it('stores null, false, 0 and "" as themselves', async () => {
    const state = mapState();
    expect(
      await valueOf(
        `for (const [k, v] of [["n", null], ["f", false], ["z", 0], ["e", ""]]) await store(k, v);
         return [await load("n"), await load("f"), await load("z"), await load("e")];`,
        state.callState,
      ),
    ).toEqual([null, false, 0, '']);
  });

  it.each([
    ['a key that is not a string', 'await store(5, 1)', 'TypeError: store(key, value): key must be a string, not number'],
    ['load of an object key', 'await load({})', 'TypeError: load(key): key must be a string, not object'],
    ['remove of no key', 'await state.remove()', 'TypeError: state.remove(key): key must be a string, not undefined'],
    [
      'a prefix that is not a string',
      'await state.keys(1)',
      'TypeError: state.keys(prefix): prefix must be a string, not number',
    ],
    [
      'undefined as the value',
      'await store("k", undefined)',
      'TypeError: store(key, value): the value must become JSON, but it is undefined; nothing was stored (state.remove(key) forgets a key)',
    ],
    [
      'a function as the value',
      'await store("k", () => 1)',
      'TypeError: store(key, value): the value must become JSON, but it is function; nothing was stored (state.remove(key) forgets a key)',
    ],
    [
      'a cyclic value',
      'const a = {}; a.a = a; await store("k", a)',
      "TypeError: store(key, value): the value can't become JSON:",
    ],
    ['a BigInt value', 'await store("k", 1n)', "TypeError: store(key, value): the value can't become JSON:"],
    [
      'a ttlMs of 0',
      'await store("k", 1, { ttlMs: 0 })',
      'RangeError: store(key, value, {ttlMs}): ttlMs must be a whole number of milliseconds above 0; got 0',
    ],
    [
      'a ttlMs that is not whole',
      'await store("k", 1, { ttlMs: 1.5 })',
      'RangeError: store(key, value, {ttlMs}): ttlMs must be a whole number of milliseconds above 0; got 1.5',
    ],
    [
      'a ttlMs of Infinity',
      'await store("k", 1, { ttlMs: Infinity })',
      'RangeError: store(key, value, {ttlMs}): ttlMs must be a whole number of milliseconds above 0; got Infinity',
    ],
    [
      'options that are not an object',
      'await store("k", 1, 500)',
      'TypeError: store(key, value, options): options must be an object {ttlMs}, not number',
    ],
  ])('throws at once for %s, and sends nothing', async (_name, call, message) => {
    const state = mapState();
    const caught = await valueOf(
      `try { ${call}; return "no error" } catch (e) { return e.name + ": " + e.message }`,
      state.callState,
    );
    expect(caught).toContain(message);
    expect(state.seen).toEqual([]);
  });

  it("throws ToolRefused with the state's own words for a store past a limit, and goes on", async () => {
    const state = mapState();
    const value = await valueOf(
      `let caught;
       try { await store("too-big", "x") } catch (e) { caught = e.name + ": " + e.message }
       await store("fine", 1);
       return { caught, fine: await load("fine"), big: await load("too-big") };`,
      state.callState,
    );
    expect(value).toEqual({ caught: 'ToolRefused: STATE_LIMIT: the value is past stateValueMaxBytes', fine: 1 });
  });

  it('throws ToolRefused saying STATE_FAILED when the backend fails, naming the call', async () => {
    const state = mapState();
    const caught = await valueOf(
      `try { await store("broken", 1); return "no error" } catch (e) { return e.name + ": " + e.message }`,
      state.callState,
    );
    expect(caught).toBe(
      'ToolRefused: STATE_FAILED: store("broken", value) failed: EACCES: permission denied. A store may or may not have been kept; load it to see.',
    );
  });

  it('refuses each call saying so when the server gives the script no state', async () => {
    const caught = await valueOf(`try { await load("k"); return "no error" } catch (e) { return e.name + ": " + e.message }`);
    expect(caught).toBe(
      'ToolRefused: STATE_OFF: load("k") was refused: this server was started without memory between scripts. Nothing was sent; it is safe to retry later.',
    );
  });

  it('counts state calls with the tool calls: sixteen out at once, the rest waiting in the script', async () => {
    // Answers are held until sixteen are out (or every call has come), so the peak shows the cap
    // whatever the machine's pace.
    let out = 0;
    let peak = 0;
    let seen = 0;
    const held: Array<() => void> = [];
    const callState: StateCaller = async (request) => {
      peak = Math.max(peak, ++out);
      seen++;
      const answered = new Promise<void>((resolve) => held.push(resolve));
      if (out === 16 || seen === 40) for (const release of held.splice(0)) release();
      await answered;
      out--;
      return request.call === 'state.load' ? { value: request.key } : null;
    };
    const value = await valueOf(
      `const keys = Array.from({ length: 40 }, (_, i) => "k" + i);
       return (await Promise.all(keys.map((k) => load(k)))).join(",") === keys.join(",");`,
      callState,
    );
    expect(value).toBe(true);
    expect(peak).toBe(16);
  });

  it("cannot change what state holds: the script's own replacements change only its own globals", async () => {
    const state = mapState();
    const value = await valueOf(
      `const before = state.load;
       const attempts = [];
       for (const attempt of [() => { state.load = () => 1 }, () => { state.extra = 1 }, () => { delete state.keys },
         () => Object.defineProperty(state, "load", { value: 1 }), () => Object.setPrototypeOf(state, {})]) {
         try { attempt(); attempts.push("done") } catch (e) { attempts.push(e.name) }
       }
       const kept = [Object.isFrozen(state), state.load === before, Object.getPrototypeOf(state), attempts, Object.keys(state).sort()];
       await state.store("k", 1);
       globalThis.load = () => "the script's own";
       return [...kept, await state.load("k"), await load("k")];`,
      state.callState,
    );
    // Sloppy-mode assignments to a frozen object do nothing without throwing; defineProperty throws.
    expect(value).toEqual([
      true,
      true,
      null,
      ['done', 'done', 'done', 'TypeError', 'TypeError'],
      ['keys', 'load', 'remove', 'store'],
      1,
      "the script's own",
    ]);
  });
});
