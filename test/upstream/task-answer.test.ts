// An upstream's task answer to a tool call, carried past the SDK 2.4 client
// (src/upstream/routing/task-answer.ts), which refuses any resultType but `complete` and
// `input_required` and, for tools/call, a result without `content`: over the SDK's in-memory pair,
// a client pinned to 2026-07-28 and a server whose tools/call answers with a task.
import { Client, InMemoryTransport, SdkError, type Transport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { describe, expect, test } from 'vitest';
import { carriedTaskOf, carryTaskAnswers } from '../../src/upstream/routing/task-answer.js';

const TASK = { taskId: 'task-1', status: 'working', createdAt: '2026-12-07T00:00:00Z', ttlMs: 60_000, pollIntervalMs: 20 };

async function connected(): Promise<{ client: Client; transport: Transport }> {
  const upstream = (): Server => {
    const server = new Server({ name: 'tasks', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/call', () => ({ resultType: 'task', ...TASK }) as never);
    return server;
  };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // serveStdio over the in-memory pair: a 2026-07-28 server, as a fixture over stdio is.
  serveStdio(upstream, { transport: serverSide, legacy: 'reject' });
  const client = new Client({ name: 'hub', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(clientSide);
  return { client, transport: clientSide };
}

const call = (client: Client) =>
  client.request({ method: 'tools/call', params: { name: 'job', arguments: {} } }, z.unknown(), { allowInputRequired: true });

describe('a task answer to tools/call', () => {
  test("is refused by the SDK's client on its own: the reason it is carried", async () => {
    const { client } = await connected();
    const refused = await call(client).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SdkError);
    expect(refused).toMatchObject({ code: 'UNSUPPORTED_RESULT_TYPE' });
    await client.close();
  });

  test('carried off the transport, reaches the call as a result that holds the task', async () => {
    const { client, transport } = await connected();
    carryTaskAnswers(transport);
    const answer = await call(client);
    expect(carriedTaskOf(answer)).toEqual({ resultType: 'task', taskId: 'task-1', status: 'working', pollIntervalMs: 20 });
    await client.close();
  });

  test('any other answer is no task', () => {
    expect(carriedTaskOf({ content: [{ type: 'text', text: 'done' }] })).toBeUndefined();
  });
});
