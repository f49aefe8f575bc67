import type { ElicitRequest } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROUTE_SCHEMA } from '../fixtures/upstreams/current-revision-schema.mjs';
import { fixturePath, valueOf } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';

// An upstream that serves only MCP 2026-07-28 (its 2025 handshake refused), opened by the server
// serving over stdio in this process; our own client is an SDK client of the 2025 revision.
const currentRevision = ['--pool', '0', '--', process.execPath, fixturePath('upstreams/current-revision.mjs')];

describe('an upstream that speaks only 2026-07-28', () => {
  let server: InProcessServer;
  const asked: ElicitRequest['params'][] = [];

  beforeAll(async () => {
    server = await startInProcess([...currentRevision.slice(0, 2), '--log-level', 'debug', ...currentRevision.slice(2)], {
      capabilities: { elicitation: { form: {} } },
      onElicit: (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
  });

  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });

  test('is opened with the current revision and a script calls its tool', async () => {
    const result = await server.run({ code: 'return (await tools["greet"]({ name: "Ada" })).content[0].text' });
    expect(valueOf(result)).toBe('hello Ada');
    expect(server.stderr()).toContain('upstream "current-revision": speaks MCP 2026-07-28');
  });

  test('an elicitation it asks through input_required mid-script reaches our 2025 client, and the answer gets back', async () => {
    const result = await server.run({ code: 'return (await tools["ask"]({})).content[0].text' });
    expect(asked).toEqual([expect.objectContaining({ mode: 'form', message: 'Your name?' })]);
    expect(valueOf(result)).toBe('asked, and got Ada');
  });
});

describe("its tools' schemas, JSON Schema 2020-12 with an x-mcp-header", () => {
  let server: InProcessServer;

  beforeAll(async () => {
    server = await startInProcess(['--expose', 'route', ...currentRevision]);
  });

  afterAll(async () => {
    expect(await server.close()).toEqual([]);
  });

  test('reach an exposed tool and a script exactly as the upstream wrote them', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.find((tool) => tool.name === 'route')?.inputSchema).toEqual(ROUTE_SCHEMA);
    const result = await server.run({ code: 'return ALL_TOOLS.find((tool) => tool.name === "route").inputSchema' });
    expect(valueOf(result)).toEqual(ROUTE_SCHEMA);
  });
});
