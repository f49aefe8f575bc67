import { readFile } from 'node:fs/promises';
import { JSException, QuickJS } from 'quickjs-wasi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeException, endMessage, failureOf, quoteStringValue } from '../../engine/ending.js';
import { SCRIPT_FILE, endedEarly } from '../../common/script-position.js';
import { ERROR_MAX_CHARS, VALUE_MAX_CHARS } from '../../protocol/contract.js';

let vm: QuickJS;

beforeAll(async () => {
  vm = await QuickJS.create({ wasm: await readFile(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm'))) });
});

afterAll(() => vm.dispose());

function thrownBy(code: string): JSException {
  try {
    vm.evalCode(code).dispose();
  } catch (error) {
    if (error instanceof JSException) return error;
    throw error;
  }
  throw new Error(`${code} did not throw`);
}

describe("a script's ending", () => {
  it('keeps an error within ERROR_MAX_CHARS as it is, with the answers read', () => {
    const { message, value } = endMessage({ status: 'finished', value: '1', unsent: '{"a":1}' }, 3, false);
    expect(message).toEqual({ t: 'end', status: 'finished', unsent: '{"a":1}', read: 3 });
    expect(endMessage({ status: 'finished' }, 0, true).message).toEqual({
      t: 'end',
      status: 'finished',
      read: 0,
      reusable: true,
    });
    expect(value).toBe('1');
    expect(endMessage({ status: 'failed', error: 'x'.repeat(ERROR_MAX_CHARS) }, 0, false).message.error).toBe(
      'x'.repeat(ERROR_MAX_CHARS),
    );
  });

  it('cuts an error past ERROR_MAX_CHARS and says how long it was', () => {
    const long = 'x'.repeat(ERROR_MAX_CHARS + 1);
    const { error } = endMessage({ status: 'failed', error: long }, 0, false).message;
    expect(error!.length).toBeLessThanOrEqual(ERROR_MAX_CHARS);
    expect(error).toBe(`${'x'.repeat(ERROR_MAX_CHARS - 64)}… (cut: the error was ${ERROR_MAX_CHARS + 1} characters)`);
  });

  it("quotes a string value within VALUE_MAX_CHARS itself, and leaves a longer one to the prelude's message", () => {
    expect(quoteStringValue(vm.newString('a "quoted" line\n'))).toBe('"a \\"quoted\\" line\\n"');
    const long = vm.newString('x'.repeat(VALUE_MAX_CHARS));
    expect(quoteStringValue(long)).toBeUndefined();
    long.dispose();
    const number = vm.newNumber(1);
    expect(quoteStringValue(number)).toBeUndefined();
    number.dispose();
  });

  it("names the memory the script had when it ran out, in the engine's own words", () => {
    const error = thrownBy('throw 1');
    Object.defineProperty(error, 'message', { value: 'out of memory' });
    expect(describeException(error, 64 * 1024 * 1024, () => 'unused')).toBe(
      "InternalError: out of memory: the script used all of its 64 MiB (the server's memoryMaxBytes setting)",
    );
    error.dispose();
  });

  it("reads a syntax error at the wrapper's last line as the script ending early", () => {
    const code = 'return {';
    const error = thrownBy('throw 1');
    const atWrapperEnd = `SyntaxError: unexpected end\n    at ${SCRIPT_FILE}:2:1`;
    expect(failureOf(error, () => atWrapperEnd, code)).toEqual({
      ending: { status: 'failed', error: endedEarly(code) },
      vmBroken: false,
      engineSpent: false,
    });
    const inside = `SyntaxError: unexpected token\n    at ${SCRIPT_FILE}:1:8`;
    expect(failureOf(error, () => inside, code).ending.error).toBe(inside);
  });

  it("marks the VM broken, and the child spent, when V8's own stack ran out", () => {
    const { ending, vmBroken, engineSpent } = failureOf(new RangeError('Maximum call stack size exceeded'), () => 'unused');
    expect(vmBroken).toBe(true);
    expect(engineSpent).toBe(true);
    expect(ending.error).toMatch(/^RangeError: the script went deeper than the engine can follow/);
  });
});
