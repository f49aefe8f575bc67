import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, test } from 'vitest';
import { RequestGate } from '../../src/mcp/request-gate.js';
import { StdioServerTransport } from '../../src/stdio/stdio-server-transport.js';

/** A gate over a real transport on in-memory pipes, serving initialize, ping and tools/call. */
async function open() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const written: Array<Record<string, unknown>> = [];
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n').filter(Boolean)) written.push(JSON.parse(line) as Record<string, unknown>);
  });
  const log: string[] = [];
  let initializations = 0;
  const gate = new RequestGate(new StdioServerTransport({ maxMessageBytes: 300, stdin, stdout }), {
    serves: (method) => ['initialize', 'ping', 'tools/call'].includes(method),
    onInitialize: () => (initializations += 1),
    maxMessageBytes: 300,
    log: (line) => log.push(line),
  });
  const delivered: JSONRPCMessage[] = [];
  gate.onmessage = (message) => void delivered.push(message);
  await gate.start();
  const send = async (...lines: Array<object | string>): Promise<void> => {
    for (const line of lines) stdin.write(typeof line === 'string' ? `${line}\n` : `${JSON.stringify(line)}\n`);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { gate, send, written, delivered, log, initializations: () => initializations };
}

const initialize = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});

describe('RequestGate', () => {
  test('lets ping through before initialize, refuses the rest, and calls onInitialize once', async () => {
    const { send, written, delivered, initializations } = await open();
    await send({ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } });
    expect(delivered.map((message) => (message as { id: number }).id)).toEqual([1]);
    expect(written).toEqual([
      { jsonrpc: '2.0', id: 2, error: { code: -32600, message: expect.stringMatching(/tools\/call came before initialize/) } },
    ]);
    await send(initialize(3), initialize(4));
    expect(initializations()).toBe(1);
    expect(delivered.map((message) => (message as { id: number }).id)).toEqual([1, 3]);
    expect(written[1]).toMatchObject({ id: 4, error: { code: -32600, message: expect.stringMatching(/already initialized/) } });
  });

  test("a client's answer to our request that is malformed or too large fails that request at once", async () => {
    const { send, delivered, written, log } = await open();
    await send(initialize(1));
    await send({ jsonrpc: '2.0', id: 7, result: null }, `{"jsonrpc":"2.0","id":8,"result":{"content":"${'x'.repeat(400)}"}}`);
    expect(delivered.slice(1)).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32600,
          message: 'the client answered with something that is not a JSON-RPC response: result must be an object; got null',
        },
      },
      {
        jsonrpc: '2.0',
        id: 8,
        error: {
          code: -32600,
          message: "the client's answer was 448 bytes, over the server's limit of 300 bytes (maxMessageBytes)",
        },
      },
    ]);
    expect(written).toEqual([]);
    expect(log).toHaveLength(2);
  });

  test('a notification before initialize, or one that does not hold, is dropped with a log line', async () => {
    const { send, delivered, written, log } = await open();
    await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await send(initialize(1), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: {} } });
    expect(delivered).toHaveLength(1);
    expect(written).toEqual([]);
    expect(log).toEqual([
      'codemode-mcp: dropped a notification notifications/initialized that came before initialize',
      'codemode-mcp: dropped a notification notifications/cancelled that does not hold: params.requestId must be a string or a number; got an object',
    ]);
  });
});
