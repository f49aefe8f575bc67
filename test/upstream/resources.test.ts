import { ProtocolError, type ReadResourceResult } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import { ResultTooLargeError, ToolRefusedError } from '../../src/support/errors.js';
import { UpstreamHub, type UpstreamHubOptions } from '../../src/upstream/hub.js';
import type { UpstreamSpec } from '../../src/upstream/spec.js';
import { resourcesServer } from '../fixtures/upstreams/resources-server.mjs';
import { inMemorySpec, inMemoryUpstreams } from './in-memory.js';
import { collectLog, fixture, hubPerTest, published, textOf } from './specs.js';

const scratch = hubPerTest();

/**
 * A hub whose entries are each served in this process by resources.mjs's server, named after
 * its entry: for what is the hub's (listing, routing, policy, list_changed). An upstream that
 * exits, a read past the limit of a message's bytes and server-everything keep real processes.
 */
function inProcessHub(specs: UpstreamSpec[], options: UpstreamHubOptions = { log: () => {} }): UpstreamHub {
  return new UpstreamHub(specs, { ...options, connect: inMemoryUpstreams((name) => resourcesServer(name)).connect });
}

const textOfRead = (result: ReadResourceResult): string =>
  result.contents.map((part) => ('text' in part ? part.text : `[blob]`)).join('');

describe('an upstream with resources', () => {
  test('every page of its resources and templates is listed, and a read goes to it by URI or by template', async () => {
    scratch.hub = new UpstreamHub([inMemorySpec('res')], {
      log: () => {},
      connect: inMemoryUpstreams(() => resourcesServer()).connect,
    });
    await scratch.hub.start();
    expect(scratch.hub.resources().map(({ server, resource }) => `${server} ${resource.uri}`)).toEqual([
      'res test://static/a',
      'res test://static/b',
      'res test://static/c',
      'res test://shared',
      'res test://fail',
    ]);
    expect(scratch.hub.resourceTemplates().map(({ template }) => template.uriTemplate)).toEqual([
      'test://item/{id}',
      'test://big/{bytes}',
    ]);
    expect(scratch.hub.catalog().resourcesOffered).toBe(true);

    const label = 'resources.read("test://static/b")';
    expect(textOfRead(await scratch.hub.readResource('test://static/b', label))).toBe('test://static/b served by resources');
    expect(textOfRead(await scratch.hub.readResource('test://item/42', 'read'))).toBe('item 42 served by resources');
  });

  test('a URI nothing routes is refused unsent, saying where to look; an upstream error on a read is a failure', async () => {
    scratch.hub = inProcessHub([inMemorySpec('res')]);
    await scratch.hub.start();
    const refusal = await scratch.hub.readResource('nope://x', 'resources.read("nope://x")').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ToolRefusedError);
    expect((refusal as Error).message).toBe(
      'RESOURCE_UNKNOWN: resources.read("nope://x") was refused: no upstream lists this URI or a resource template that matches it; ' +
        'resources.list() and resources.templates() show what can be read. Nothing was sent.',
    );
    const failure = await scratch.hub.readResource('test://fail', 'read').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProtocolError);
    expect((failure as Error).message).toContain('this resource always fails');
  });

  test('an unknown URI while another upstream has never listed says that one may hold it', async () => {
    scratch.hub = new UpstreamHub([fixture('res', 'resources.mjs'), fixture('gone', 'exits-at-once.mjs')], { log: () => {} });
    await scratch.hub.start();
    await expect(scratch.hub.readResource('gone://x', 'resources.read("gone://x")')).rejects.toMatchObject({
      code: 'RESOURCE_UNKNOWN',
      message: expect.stringContaining(
        'no upstream lists this URI or a resource template that matches it (upstream "gone" has not listed its resources yet: starting, or down)',
      ),
    });
  });

  test('the resources policy hides a denied URI, and a read of it is refused as denied', async () => {
    scratch.hub = inProcessHub([{ ...inMemorySpec('res'), resourcePolicy: { deny: ['test://static/*'] } }]);
    await scratch.hub.start();
    expect(scratch.hub.resources().map(({ resource }) => resource.uri)).toEqual(['test://shared', 'test://fail']);
    await expect(scratch.hub.readResource('test://static/a', 'r')).rejects.toMatchObject({
      code: 'RESOURCE_DENIED',
      message: expect.stringContaining('the config\'s resources policy of upstream "res" does not allow this URI'),
    });
  });

  test('a read whose answer is past the read limit is ResultTooLarge, and the upstream stays up', async () => {
    // 4 MiB of memory: the read limit is a fraction of it (read-limit.ts).
    const settings = {
      upstreamStartTimeoutMs: 10_000,
      upstreamPingIntervalMs: 0,
      upstreamPingTimeoutMs: 1_000,
      memoryMaxBytes: 4 * 1024 * 1024,
    };
    scratch.hub = new UpstreamHub([fixture('res', 'resources.mjs')], { log: () => {}, settings });
    await scratch.hub.start();
    const tooLarge = await scratch.hub
      .readResource('test://big/20000000', 'resources.read("test://big/20000000")')
      .catch((error: unknown) => error);
    expect(tooLarge).toBeInstanceOf(ResultTooLargeError);
    expect((tooLarge as Error).message).toMatch(
      /^RESULT_TOO_LARGE: upstream res answered the call to resources\.read\("test:\/\/big\/20000000"\), but its result came as a message of \d+ bytes/,
    );
    expect(textOfRead(await scratch.hub.readResource('test://big/3', 'r'))).toBe('xxx');
  });

  test('list_changed re-lists its resources and tells the listeners', async () => {
    scratch.hub = new UpstreamHub([inMemorySpec('res')], {
      log: () => {},
      connect: inMemoryUpstreams(() => resourcesServer()).connect,
    });
    await scratch.hub.start();
    const changed = new Promise<void>((resolve) => scratch.hub!.events.on('resources-changed', resolve));
    expect(textOf(await scratch.hub.callTool('add-resource', { uri: 'test://fresh' }))).toBe('added test://fresh');
    await changed;
    expect(scratch.hub.resources().map(({ resource }) => resource.uri)).toContain('test://fresh');
    expect(textOfRead(await scratch.hub.readResource('test://fresh', 'r'))).toBe('test://fresh served by resources');
  });

  test('two upstreams listing one URI: the first in config order serves it, and the log names both', async () => {
    const { lines, log } = collectLog();
    scratch.hub = inProcessHub([inMemorySpec('first'), inMemorySpec('second')], { log });
    await scratch.hub.start();
    expect(textOfRead(await scratch.hub.readResource('test://shared', 'r'))).toBe('test://shared served by first');
    expect(textOfRead(await scratch.hub.readResource('test://item/1', 'r'))).toBe('item 1 served by first');
    expect(lines).toContain(
      'codemode-mcp: resource "test://shared" is listed by upstream "first" and upstream "second"; reads go to "first", the first in the config',
    );
    expect(scratch.hub.resources().filter(({ resource }) => resource.uri === 'test://shared')).toEqual([
      expect.objectContaining({ server: 'first' }),
    ]);
  });

  test('server-everything: its documents and templates are listed and read, beside a second upstream', async () => {
    scratch.hub = new UpstreamHub([published('everything', 'server-everything'), fixture('res', 'resources.mjs')], {
      log: () => {},
    });
    await scratch.hub.start();
    const documents = scratch.hub.resources().filter(({ server }) => server === 'everything');
    expect(documents.length).toBeGreaterThan(0);
    expect(documents[0]!.resource.uri).toMatch(/^demo:\/\/resource\/static\/document\//);
    const templates = scratch.hub.resourceTemplates().map(({ server, template }) => `${server} ${template.uriTemplate}`);
    expect(templates).toContain('everything demo://resource/dynamic/text/{resourceId}');
    const read = await scratch.hub.readResource(documents[0]!.resource.uri, 'r');
    expect(read.contents[0]!.uri).toBe(documents[0]!.resource.uri);
    const dynamic = await scratch.hub.readResource('demo://resource/dynamic/text/7', 'r');
    expect(textOfRead(dynamic)).toContain('7');
    expect(textOfRead(await scratch.hub.readResource('test://static/a', 'r'))).toBe('test://static/a served by resources');
  });
});
