import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { childPidsOf } from '../support/processes.js';
import { collectLog, published, textOf } from './specs.js';

// One hub for these read-only tests: server-everything takes 2 s to close (it ignores stdin's end,
// so the SDK waits before SIGTERM), and the tests only read.
let hub: UpstreamHub;
const { lines, log } = collectLog();

beforeAll(async () => {
  process.env.CODEMODE_TEST_SECRET = 'must-not-leak';
  hub = new UpstreamHub([published('everything', 'server-everything', ['stdio'], { GREETING: 'hello' })], { log });
  await hub.start();
  delete process.env.CODEMODE_TEST_SECRET;
});

afterAll(async () => {
  await hub.close();
  expect(childPidsOf(process.pid)).toEqual([]);
});

describe('one upstream: server-everything over stdio', () => {
  test('its tools keep their own names and their schemas', async () => {
    const names = hub.catalog().tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'get-structured-content']));
    const sum = hub.catalog().tools.find((tool) => tool.name === 'get-sum')!;
    expect(sum).toMatchObject({ server: 'everything', upstreamName: 'get-sum', allowed: true });
    expect(sum.inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' } } });
    expect(hub.catalog().tools.find((tool) => tool.name === 'get-structured-content')!.outputSchema).toMatchObject({
      type: 'object',
    });
  });

  test('get-sum of 2 and 40 answers 42', async () => {
    const result = await hub.callTool('get-sum', { a: 2, b: 40 });
    expect(textOf(result)).toContain('42');
    expect(result.isError).toBeFalsy();
  });

  test('an image block survives with its data', async () => {
    const result = await hub.callTool('get-tiny-image', {});
    const image = result.content.find((block) => block.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(image?.type === 'image' && image.data.length).toBeGreaterThan(100);
  });

  test('structured content comes back as the tool sent it', async () => {
    const result = await hub.callTool('get-structured-content', { location: 'Chicago' });
    expect(result.structuredContent).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
  });

  test('the upstream gets the minimal environment plus its entry env, never ours', async () => {
    const env = JSON.parse(textOf(await hub.callTool('get-env', {}))) as Record<string, string>;
    expect(env.GREETING).toBe('hello');
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.CODEMODE_TEST_SECRET).toBeUndefined();
  });

  test('its stderr reaches our log line by line, prefixed with its name', async () => {
    expect(lines).toContain('[everything] Starting default (STDIO) server...');
  });
});
