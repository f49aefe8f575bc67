import { ProtocolError } from '@modelcontextprotocol/client';
import type { Server } from '@modelcontextprotocol/server';
import { describe, expect, test } from 'vitest';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { MERGED_PAGE_SIZE } from '../../src/upstream/passthrough/merged-pages.js';
import type { UpstreamSpec } from '../../src/upstream/spec.js';
import { lenientNamesServer } from '../fixtures/upstreams/lenient-names-server.mjs';
import { resourcesServer } from '../fixtures/upstreams/resources-server.mjs';
import { inMemorySpec, inMemoryUpstreams } from './in-memory.js';
import { hubPerTest } from './specs.js';

const scratch = hubPerTest();

/**
 * Merging pages is the hub's work, not a process's: the fixtures' servers (resources.mjs,
 * lenient-names.mjs) are served in this process. Each entry's server is made by `serve`.
 */
function hubOf(entries: UpstreamSpec[], serve: (name: string) => Server): UpstreamHub {
  return new UpstreamHub(entries, { log: () => {}, connect: inMemoryUpstreams(serve).connect });
}

// Regression: a merged list gave one upstream page per page, with a cursor to the next, so a
// client that reads only the first page (several do) saw only the first upstream's items.
describe('merged lists fill each page across upstreams', () => {
  const start = async (extra: number) => {
    scratch.hub = hubOf(
      [
        // Its 4 allowed resources make second's share of the first page fall inside one of its pages.
        { ...inMemorySpec('first'), resourcePolicy: { deny: ['test://fail'] } },
        inMemorySpec('second'),
        inMemorySpec('p1'),
        inMemorySpec('p2'),
      ],
      (name) =>
        name === 'first' ? resourcesServer('first') : name === 'second' ? resourcesServer('second', extra) : lenientNamesServer(),
    );
    await scratch.hub.start();
    return scratch.hub;
  };

  test('one page holds every upstream’s resources, templates and prompts while they fit, with no cursor', async () => {
    const hub = await start(3);
    const resources = await hub.resourcePassthrough.list(undefined);
    // first's 4 allowed (pages of 2), second's 3 of its own (the URIs both list stay with first), p1's 2 (p2 lists the same).
    expect(resources.resources.map((resource) => resource.uri)).toEqual([
      'test://static/a',
      'test://static/b',
      'test://static/c',
      'test://shared',
      'test://second/many/0',
      'test://second/many/1',
      'test://second/many/2',
      'test://public',
      'test://secret',
    ]);
    expect(resources.nextCursor).toBeUndefined();
    const templates = await hub.resourcePassthrough.templates(undefined);
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'test://item/{id}',
      'test://big/{bytes}',
      'test://second/{id}',
    ]);
    expect(templates.nextCursor).toBeUndefined();
    const prompts = await hub.prompts.list(undefined);
    expect(prompts.prompts.map((prompt) => prompt.name)).toEqual(['p1__public', 'p1__secret', 'p2__public', 'p2__secret']);
    expect(prompts.nextCursor).toBeUndefined();
  });

  test('past the page size a page is full, the next starts where it ended (inside an upstream page), and nothing repeats or is lost', async () => {
    const hub = await start(MERGED_PAGE_SIZE + 20);
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await hub.resourcePassthrough.list(cursor);
      pages.push(page.resources.map((resource) => resource.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined && pages.length < 10);
    expect(pages.map((page) => page.length)).toEqual([MERGED_PAGE_SIZE, 26]);
    const all = pages.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(hub.resources().map(({ resource }) => resource.uri));
  });

  // Regression: a page that filled exactly at the end of an upstream page read one more page with
  // no room left, and gave a cursor with `skip: 0`, which the server then refused as not its own.
  test('a page filled exactly at the end of an upstream page gives a cursor the next request takes', async () => {
    scratch.hub = hubOf([inMemorySpec('only')], () => resourcesServer('only', MERGED_PAGE_SIZE + 20));
    await scratch.hub.start();
    const first = await scratch.hub.resourcePassthrough.list(undefined);
    expect(first.resources).toHaveLength(MERGED_PAGE_SIZE);
    const second = await scratch.hub.resourcePassthrough.list(first.nextCursor);
    expect(second.resources).toHaveLength(25);
    expect([...first.resources, ...second.resources].map((resource) => resource.uri)).toEqual(
      scratch.hub.resources().map(({ resource }) => resource.uri),
    );
  });

  test('a bad or stale cursor is -32602 saying what to do', async () => {
    const hub = await start(0);
    const cursorOf = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');
    const cases: [string, RegExp][] = [
      ['not-ours', /the cursor "not-ours" is not one this server gave; pass the nextCursor of the previous page as it came/],
      [cursorOf({ server: 'second', skip: -1 }), /is not one this server gave/],
      [cursorOf({ server: 'second', skip: 1.5 }), /is not one this server gave/],
      [cursorOf({ server: 'second', cursor: 7 }), /is not one this server gave/],
      [cursorOf({ server: 'gone' }), /the cursor's upstream "gone" is no longer serving this list; list again from the start/],
    ];
    for (const [cursor, message] of cases) {
      const error = await hub.resourcePassthrough.list(cursor).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error, cursor).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code).toBe(-32602);
      expect((error as ProtocolError).message).toMatch(message);
    }
  });
});
