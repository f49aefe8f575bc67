import { join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, test } from 'vitest';
import { readRecord } from '../upstream/specs.js';
import { BIN, fixturePath, nodeEntry, trackDescendants, valueOf, writeConfig } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

/** The server's command line, in front of the recorder alone, which writes its starts to a fresh file. */
function recorderArgs(): { args: string[]; recordFile: string } {
  const recordFile = join(makeTempDir('e2e-clients'), 'record.jsonl');
  const config = writeConfig({
    recorder: nodeEntry(fixturePath('upstreams/recorder.mjs'), [], { env: { RECORD_FILE: recordFile } }),
  });
  return { args: [BIN, '--config', config], recordFile };
}

const code = 'return (await tools["echo"]({ text: "hi" })).content[0].text';

describe('clients of both SDK lines', () => {
  test('a client built on SDK 1.x lists code_execution and runs a script', async () => {
    const { args } = recorderArgs();
    // No pool: what is checked is the client's; the one run makes its child.
    const transport = new V1StdioClientTransport({ command: process.execPath, args: [...args, '--pool', '0'], stderr: 'pipe' });
    const client = new V1Client({ name: 'v1-client', version: '1.0.0' });
    await client.connect(transport);
    const tracker = trackDescendants(transport.pid!);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['code_execution']);
    const result = await client.callTool({ name: 'code_execution', arguments: { code } });
    expect((result.structuredContent as { value: unknown }).value).toBe('hi');
    tracker.sample();
    await client.close();
    expect(await tracker.leftAlive()).toEqual([]);
  });

  // Regression: an exposed tool whose inputSchema wasn't `type: "object"` was listed as the upstream
  // wrote it, and this client's listTools() threw, so it couldn't list code_execution either.
  test('a client built on SDK 1.x lists exposed tools whose upstream schemas MCP does not allow, and scripts see the same placeholders', async () => {
    const config = writeConfig({ odd: nodeEntry(fixturePath('upstreams/misbehaving.mjs'), ['--invalid-schemas']) });
    const args = [
      BIN,
      '--config',
      config,
      '--pool',
      '0',
      '--expose',
      '*-input',
      '--expose',
      'array-output',
      '--expose',
      'string-hint',
    ];
    const transport = new V1StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' });
    const stderr: string[] = [];
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = new V1Client({ name: 'v1-client', version: '1.0.0' });
    await client.connect(transport);
    const tracker = trackDescendants(transport.pid!);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.inputSchema.type, tool.outputSchema, tool.annotations])).toEqual([
      ['code_execution', 'object', undefined, undefined],
      ['string-input', 'object', undefined, undefined],
      ['untyped-input', 'object', undefined, undefined],
      ['array-output', 'object', undefined, undefined],
      ['string-hint', 'object', undefined, undefined],
    ]);
    expect(stderr.join('')).toContain(
      'upstream "odd": tool "string-input": its inputSchema has type "string", where MCP requires "object", so it is shown as taking any arguments (the upstream still checks them)',
    );
    const listed =
      'return ALL_TOOLS.filter((t) => t.name.includes("-")).map((t) => [t.name, t.inputSchema.type, t.outputSchema ?? null])';
    const result = await client.callTool({ name: 'code_execution', arguments: { code: listed } });
    expect((result.structuredContent as { value: unknown }).value).toEqual(
      expect.arrayContaining([
        ['string-input', 'object', null],
        ['untyped-input', 'object', null],
        ['array-output', 'object', null],
      ]),
    );
    tracker.sample();
    await client.close();
    expect(await tracker.leftAlive()).toEqual([]);
  });

  test("an SDK 2.x client in 'auto' negotiation is served 2026-07-28, and its probe copy starts no upstream", async () => {
    const { args, recordFile } = recorderArgs();
    const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' });
    const client = new Client({ name: 'auto-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(transport);
    const tracker = trackDescendants(transport.pid!);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const result = await client.callTool({ name: 'code_execution', arguments: { code } });
    expect(valueOf(result)).toBe('hi');
    tracker.sample();
    await client.close();
    expect(await tracker.leftAlive()).toEqual([]);
    expect(readRecord(recordFile).filter((entry) => entry.event === 'start')).toHaveLength(1);
  });
});
