/**
 * The compiler's connection when its socket is gone under a request (the compiler killed on an
 * overrun, the checker closed during a check): the request fails to its caller, and nothing else.
 * TypeScript 7's vendored JSON-RPC (vscode-jsonrpc 9) also rethrew a failed write from inside a
 * promise's executor, an unhandled rejection that ends a Node process; build/jsonrpc-write-fix.js
 * takes that rethrow out of the bundle, and this test fails (vitest reports the rejection) without it.
 */
import { afterEach, expect, test } from 'vitest';
import { CompilerProcess } from '../../src/typecheck/compiler-process.js';

/** The API's client, which the package keeps private: what this test reaches into to cut the socket. */
interface ApiClient {
  apiRequest(method: string, params: unknown): Promise<unknown>;
  socket: { destroy(): void } | undefined;
}

const started: CompilerProcess[] = [];
afterEach(async () => {
  for (const compiler of started.splice(0)) await compiler.kill(new Error('the test is over'));
});

test('a request written after the socket is destroyed rejects to its caller, with no unhandled rejection', async () => {
  const compiler = await CompilerProcess.start({ memoryMaxBytes: 256 * 1024 * 1024, timeLimitMs: 60_000 });
  started.push(compiler);
  const client = (compiler.api as unknown as { client: ApiClient }).client;
  await client.apiRequest('initialize', null);
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    client.socket?.destroy();
    // Sent in the same turn, before the connection has heard of the close: its write is what fails.
    await expect(client.apiRequest('initialize', null)).rejects.toThrow(/destroyed|closed|disposed/i);
    // An unhandled rejection is reported after the microtasks of the turn it happened in.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  expect(unhandled).toEqual([]);
});
