// A remote upstream that makes tasks itself (the fixture task-maker.mjs over Streamable HTTP in
// 2026-07-28): a call to it is followed through its task to the answer, over the HTTP client
// transport (the task answer carried past the SDK's client there too; tasks/get with its headers).
import { describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { fixturePath } from '../support/mcp-client.js';
import { collectLog, remotePerTest, textOf } from './specs.js';

const scratch = remotePerTest();

async function startTaskMaker(): Promise<UpstreamHub> {
  const [, port] = await scratch.serve(
    [fixturePath('upstreams/task-maker.mjs'), '--http'],
    { PATH: process.env.PATH },
    /listening on (\d+)/,
  );
  const hub = (scratch.hub = new UpstreamHub(
    [{ name: 'tasks', transport: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {}, policy: {} }],
    { log: collectLog().log, settings: DEFAULT_SETTINGS },
  ));
  await hub.start();
  return hub;
}

describe('a remote upstream in 2026-07-28 that makes tasks itself', () => {
  test("a call of its task-only tool answers with the task's result", async () => {
    const hub = await startTaskMaker();
    expect(textOf(await hub.callTool('report', { topic: 'sales' }))).toBe('report on sales');
  });

  test("a call whose task fails rejects with the task's JSON-RPC error", async () => {
    const hub = await startTaskMaker();
    await expect(hub.callTool('fail', {})).rejects.toMatchObject({ code: -32001, message: expect.stringContaining('as meant') });
  });
});
