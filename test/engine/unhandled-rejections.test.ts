import { readFile } from 'node:fs/promises';
import { QuickJS, type JSValueHandle } from 'quickjs-wasi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnhandledRejections } from '../../engine/unhandled-rejections.js';

let vm: QuickJS;
const rejections = new UnhandledRejections();

beforeAll(async () => {
  vm = await QuickJS.create({
    wasm: await readFile(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm'))),
    onUnhandledRejection: (promise: JSValueHandle, reason: JSValueHandle, isHandled: boolean) =>
      rejections.track(promise, reason, isHandled),
  });
});

afterAll(() => vm.dispose());

function run(code: string): void {
  vm.evalCode(code).dispose();
  vm.executePendingJobs();
}

function report(format: (reason: JSValueHandle) => string): string {
  let written = '';
  rejections.report(format, (text) => (written += text));
  return written;
}

const asString = (reason: JSValueHandle): string => reason.consume((h) => h.toString());

describe('unhandled rejections', () => {
  it('prints each rejection nothing handled, once, and not one handled later', () => {
    run('globalThis.late = Promise.reject("late"); Promise.reject("never")');
    run('late.catch(() => {})');
    expect(report(asString)).toBe('Uncaught (in promise) never\n');
    expect(report(asString)).toBe('');
  });

  it('says so when a reason cannot be printed', () => {
    run('Promise.reject("x")');
    expect(
      report((reason) => {
        reason.dispose();
        throw new Error('out of memory');
      }),
    ).toBe('Uncaught (in promise) (a rejection that could not be printed)\n');
  });
});
