import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, test } from 'vitest';
import { LiveGroups } from '../../src/support/process-group.js';
import { StderrLines } from '../../src/support/stderr-lines.js';
import { StdioUpstreamTransport } from '../../src/upstream/transport/stdio-transport.js';
import { childPidsOf, statFieldsOf } from '../support/processes.js';
import { fixturePath } from '../support/mcp-client.js';
import { until } from './specs.js';

let transport: StdioUpstreamTransport | undefined;

afterEach(async () => {
  await transport?.close();
  transport = undefined;
  expect(childPidsOf(process.pid)).toEqual([]);
});

/** The misbehaving fixture behind our transport, reading at most `maxMessageBytes` per message. */
async function open(maxMessageBytes: number): Promise<{ messages: JSONRPCMessage[]; errors: string[]; closed: () => boolean }> {
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closed = false;
  transport = new StdioUpstreamTransport({
    name: 'bad',
    command: process.execPath,
    args: [fixturePath('upstreams/misbehaving.mjs')],
    env: {},
    stderr: new StderrLines('[bad] ', () => {}),
    maxMessageBytes,
    processGroups: new LiveGroups(),
  });
  transport.onmessage = (message) => void messages.push(message);
  transport.onerror = (error) => void errors.push(error.message);
  transport.onclose = () => void (closed = true);
  await transport.start();
  return { messages, errors, closed: () => closed };
}

const call = (id: number, name: string, args: Record<string, unknown> = {}): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('our stdio transport', () => {
  test('a response over the limit becomes an error answer to exactly its request, and reading goes on', async () => {
    const { messages, closed } = await open(64 * 1024);
    await transport!.send(call(1, 'big', { bytes: 200_000 }));
    await transport!.send(call(2, 'echo', { text: 'next' }));
    await until(() => messages.length === 2);
    expect(messages[0]).toMatchObject({
      id: 1,
      error: {
        message: expect.stringMatching(/^the upstream's answer was 2000\d\d bytes, past the 65536 bytes read from an upstream$/),
      },
    });
    expect(messages[1]).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'next' }] } });
    expect(closed()).toBe(false);
  });

  test('a response whose result is null becomes an error answer to its request at once', async () => {
    const { messages } = await open(64 * 1024);
    await transport!.send(call(1, 'null-result'));
    await until(() => messages.length === 1);
    expect(messages[0]).toMatchObject({
      id: 1,
      error: { message: "the upstream's answer isn't a JSON-RPC result: result must be an object; got null" },
    });
  });

  test('a line that is not JSON is skipped with a report, and the answer after it arrives', async () => {
    const { messages, errors } = await open(64 * 1024);
    await transport!.send(call(1, 'noise'));
    await until(() => messages.length === 1);
    expect(errors).toEqual([expect.stringMatching(/^skipped a line that isn't JSON \(.*\): "this line is not JSON"$/)]);
    expect(messages[0]).toMatchObject({ id: 1, result: { content: [{ text: 'after the noise' }] } });
  });

  test('the upstream leads a process group of its own, and close ends it', async () => {
    await open(64 * 1024);
    const pid = transport!.pid!;
    expect(Number(readStat(pid)[2])).toBe(pid); // field 5 of /proc/<pid>/stat: the process group
    await transport!.close();
    expect(childPidsOf(process.pid)).toEqual([]);
  });
});

function readStat(pid: number): string[] {
  return statFieldsOf(pid) ?? [];
}
