import { rmSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { NameCollisionError } from '../../src/support/errors.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { assignToolNames, describeCollision, serverForName } from '../../src/upstream/tools/tool-names.js';
import { childPidsOf } from '../support/processes.js';
import { inMemorySpec, inMemoryUpstreams, namedTools, pagedUpstream } from './in-memory.js';
import { published, textOf } from './specs.js';
import { makeTempDir } from '../support/temp-dirs.js';

let hub: UpstreamHub | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  expect(childPidsOf(process.pid)).toEqual([]);
});

function tempDir(): string {
  const dir = makeTempDir('upstream');
  dirs.push(dir);
  return dir;
}

describe('tool names with several upstreams', () => {
  test('everything, memory and filesystem tools are named <server>__<tool> and each call reaches its own server', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'hello.txt'), 'hello from the temp dir');
    hub = new UpstreamHub(
      [
        published('everything', 'server-everything', ['stdio']),
        published('memory', 'server-memory', [], { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }),
        published('files', 'server-filesystem', [dir]),
      ],
      { log: () => {} },
    );
    await hub.start();
    const names = hub.catalog().tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['everything__get-sum', 'memory__read_graph', 'files__read_text_file']));
    expect(names.every((name) => /^(everything|memory|files)__/.test(name))).toBe(true);
    expect(hub.catalog().tools.find((tool) => tool.name === 'files__read_text_file')).toMatchObject({
      server: 'files',
      upstreamName: 'read_text_file',
    });

    expect(textOf(await hub.callTool('everything__get-sum', { a: 2, b: 40 }))).toContain('42');
    expect(textOf(await hub.callTool('files__read_text_file', { path: join(dir, 'hello.txt') }))).toBe('hello from the temp dir');
    await hub.callTool('memory__create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote code'] }],
    });
    expect(textOf(await hub.callTool('memory__read_graph', {}))).toContain('Ada');
  });

  test('two tools that come out with the same name stop the start with an error naming both', async () => {
    const upstreams = inMemoryUpstreams((name) => (name === 'a' ? namedTools('x__y', 'other') : namedTools('y')));
    hub = new UpstreamHub([inMemorySpec('a'), inMemorySpec('a__x')], { log: () => {}, connect: upstreams.connect });
    const error = await hub.start().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(NameCollisionError);
    expect(error).toMatchObject({ code: 'NAME_COLLISION' });
    expect((error as Error).message).toBe(
      'NAME_COLLISION: "a__x__y" is both tool "x__y" of upstream "a" and tool "y" of upstream "a__x". Rename a server in the config',
    );
    // start() closed what it had opened before it threw.
    expect([...upstreams.servers.values()].map((server) => server.isConnected())).toEqual([false, false]);
  });

  test('of two tools with one name, the first claimant keeps it', () => {
    const { names, collisions } = assignToolNames(true, [
      { server: 'a', tool: 'x__y' },
      { server: 'a__x', tool: 'y' },
    ]);
    expect(names.get('a__x__y')).toEqual({ server: 'a', tool: 'x__y' });
    expect(collisions.map(describeCollision)).toEqual([
      '"a__x__y" is both tool "x__y" of upstream "a" and tool "y" of upstream "a__x"',
    ]);
  });

  test('an upstream that lists a tool twice is a collision too', () => {
    const { collisions } = assignToolNames(false, [
      { server: 'solo', tool: 'dup' },
      { server: 'solo', tool: 'dup' },
    ]);
    expect(collisions.map(describeCollision)).toEqual(['upstream "solo" lists tool "dup" twice']);
  });

  test('an unlisted name belongs to the longest server name that prefixes it', () => {
    expect(serverForName('a__x__y', ['a', 'a__x', 'b'])).toBe('a__x');
    expect(serverForName('b__z', ['a', 'a__x', 'b'])).toBe('b');
    expect(serverForName('nothing', ['a', 'b'])).toBeUndefined();
    expect(serverForName('anything', ['solo'])).toBe('solo');
  });
});

describe('listing and results', () => {
  test('tools/list is followed page by page through nextCursor', async () => {
    hub = new UpstreamHub([inMemorySpec('paged')], { log: () => {}, connect: inMemoryUpstreams(pagedUpstream).connect });
    await hub.start();
    expect(hub.catalog().tools.map((tool) => tool.name)).toEqual(['bad-structured', 'no-structured', 't3', 't4', 't5']);
  });

  test('structured content that breaks its output schema comes back as sent, not as an error', async () => {
    hub = new UpstreamHub([inMemorySpec('paged')], { log: () => {}, connect: inMemoryUpstreams(pagedUpstream).connect });
    await hub.start();
    // Regression guard: the v2 client's callTool() throws -32602 here; we send tools/call ourselves.
    expect(await hub.callTool('bad-structured', {})).toEqual({
      content: [{ type: 'text', text: 'n is a string' }],
      structuredContent: { n: 'not a number' },
    });
    expect(await hub.callTool('no-structured', {})).toEqual({ content: [{ type: 'text', text: 'no-structured' }] });
  });
});
