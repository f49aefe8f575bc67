import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, test } from 'vitest';
import type { Rejection } from '../../src/json-rpc/parse-line.js';
import { StdioServerTransport } from '../../src/stdio/stdio-server-transport.js';

/** A stdout that takes one write at a time and holds it until `release()`: a client slow to read. */
class SlowPipe extends Writable {
  readonly written: string[] = [];
  private pending: (() => void) | undefined;
  constructor() {
    super({ highWaterMark: 16 });
  }
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.written.push(chunk.toString());
    this.pending = done;
  }
  release(): void {
    const done = this.pending;
    this.pending = undefined;
    done?.();
  }
}

function open(maxMessageBytes = 1_000) {
  const stdin = new PassThrough();
  const stdout = new SlowPipe();
  const transport = new StdioServerTransport({ maxMessageBytes, stdin, stdout });
  const messages: JSONRPCMessage[] = [];
  const rejections: Rejection[] = [];
  transport.onmessage = (message) => void messages.push(message);
  transport.onrejected = (rejection) => void rejections.push(rejection);
  return { stdin, stdout, transport, messages, rejections };
}

describe('StdioServerTransport', () => {
  test('hands on messages, reports what is not one, and reads on past a line over the limit', async () => {
    const { stdin, transport, messages, rejections } = open(200);
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\nnot json\n');
    stdin.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"code":"${'x'.repeat(500)}"}}\n`);
    stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping","params":"x"}\n{"jsonrpc":"2.0","id":4,"method":"ping"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(messages.map((message) => (message as { id: number }).id)).toEqual([1, 4]);
    expect(rejections).toEqual([
      { kind: 'not-json', problem: expect.stringContaining('not valid JSON') },
      { kind: 'oversize', bytes: 567, id: 2, role: 'request' },
      expect.objectContaining({ kind: 'not-json-rpc', id: 3, role: 'request', problem: 'params must be an object; got "x"' }),
    ]);
    await transport.close();
  });

  test('writes one message at a time: the next is serialized once the pipe has taken the one before', async () => {
    const { stdout, transport } = open();
    await transport.start();
    const sent = [1, 2, 3].map((id) => transport.send({ jsonrpc: '2.0', id, result: { text: 'y'.repeat(1_000) } }));
    let settled = 0;
    for (const promise of sent) void promise.then(() => (settled += 1));
    await new Promise((resolve) => setImmediate(resolve));
    // One message in the pipe's buffer, not three.
    expect(stdout.writableLength).toBeLessThan(2_000);
    expect(settled).toBe(0);
    for (let round = 0; round < 10 && settled < 3; round += 1) {
      stdout.release();
      await new Promise((resolve) => setImmediate(resolve));
      expect(stdout.writableLength).toBeLessThan(2_000);
    }
    expect(settled).toBe(3);
    expect(stdout.written.map((line) => (JSON.parse(line) as { id: number }).id)).toEqual([1, 2, 3]);
    await transport.close();
  });

  test('closes when stdin ends, saying how much of an unfinished last line it dropped', async () => {
    const { stdin, transport } = open();
    const errors: string[] = [];
    transport.onerror = (error) => void errors.push(error.message);
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    await transport.start();
    stdin.end('{"jsonrpc":"2.0","id":1,"meth');
    await closed;
    expect(errors).toEqual(["the client's input ended inside a message (29 bytes without a newline), which was dropped"]);
    await expect(transport.send({ jsonrpc: '2.0', id: 1, result: {} })).rejects.toThrow(/closed/);
  });
});
