import { readFile } from 'node:fs/promises';
import { QuickJS, type JSValueHandle } from 'quickjs-wasi';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bridgeHost } from '../../../engine/host/bridge.js';
import { HOST_FUNCTIONS, HOST_REFUSED, type HostFunctions } from '../../../common/seam.js';

let vm: QuickJS;

beforeAll(async () => {
  vm = await QuickJS.create({ wasm: await readFile(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm'))) });
});

afterAll(() => vm.dispose());

/** Host functions that record what they were given and answer with fixed primitives. */
function recordingFunctions(): { functions: HostFunctions; given: unknown[][] } {
  const given: unknown[][] = [];
  const record =
    <T>(answer: T) =>
    (...args: unknown[]): T => {
      given.push(args);
      return answer;
    };
  const functions: HostFunctions = {
    send: record(7),
    sendApi: record('past a cap'),
    checkArgs: record(''),
    out: record(undefined),
    notify: record(''),
    setTimer: record(1),
    clearTimer: record(undefined),
    search: record('[]'),
    closest: record(''),
    show: record(''),
    stripTypes: record('{}'),
  };
  return { functions, given };
}

function read(handle: JSValueHandle): unknown {
  return handle.consume((h) => (h.isUndefined ? undefined : h.isNumber ? h.toNumber() : h.toString()));
}

describe('the bridge between QuickJS and the host functions', () => {
  it('hands a function its primitives and gives back what it answers', () => {
    const { functions, given } = recordingFunctions();
    const host = bridgeHost(() => vm, functions);
    expect(read(host.send(vm.newString('a.b'), vm.newString('{}')))).toBe(7);
    expect(read(host.sendApi(vm.newString('read'), vm.newString('{}')))).toBe('past a cap');
    expect(read(host.search(vm.newString('files'), vm.newNumber(5)))).toBe('[]');
    expect(read(host.out(vm.newString('hi\n')))).toBeUndefined();
    expect(given).toEqual([['a.b', '{}'], ['read', '{}'], ['files', 5], ['hi\n']]);
  });

  it('refuses arguments of the wrong type, or too few, without calling the function', () => {
    const { functions, given } = recordingFunctions();
    const host = bridgeHost(() => vm, functions);
    expect(read(host.send(vm.newString('a.b'), vm.newNumber(1)))).toBe(HOST_REFUSED);
    expect(read(host.setTimer(vm.newString('10')))).toBe(HOST_REFUSED);
    expect(read(host.search(vm.newString('files')))).toBe(HOST_REFUSED);
    const object = vm.evalCode('({ toString() { throw new Error("ran") } })');
    expect(read(host.out(object))).toBe(HOST_REFUSED);
    expect(given).toEqual([]);
  });

  it('gives every host function of the seam', () => {
    expect(Object.keys(bridgeHost(() => vm, recordingFunctions().functions)).sort()).toEqual([...HOST_FUNCTIONS].sort());
  });

  it('throws a string, not an Error, when a function fails', () => {
    const { functions } = recordingFunctions();
    const host = bridgeHost(() => vm, {
      ...functions,
      notify: () => {
        throw new Error('broken');
      },
    });
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let thrown: unknown;
    try {
      host.notify(vm.newString('{}'));
    } catch (error) {
      thrown = error;
    } finally {
      stderr.mockRestore();
    }
    expect(thrown).toBe("codemode: the engine failed in notify (the server's log has the details)");
  });
});
