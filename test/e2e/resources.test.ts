/**
 * Scripts reading upstream resources: a real client over stdio, in front of server-everything and
 * the resources fixture (paged lists, templates, a failing read, reads of any size).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fixturePath, nodeEntry, publishedEntry, textOf, valueOf, writeConfig } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';

let server: InProcessServer;

beforeAll(async () => {
  const config = writeConfig(
    {
      everything: nodeEntry(publishedEntry('server-everything'), ['stdio']),
      res: nodeEntry(fixturePath('upstreams/resources.mjs'), ['res'], { resources: { deny: ['test://static/c'] } }),
    },
    // A result cap of a third of 8 MiB: a read of 3,000,000 bytes is past it (and within the 3.8 MB read from an upstream).
    { memoryMaxBytes: 8 * 1024 * 1024 },
  );
  // No pool: what is checked is reading resources; each run makes its child.
  server = await startInProcess(['--config', config, '--pool', '0']);
});

afterAll(async () => {
  expect(await server.close()).toEqual([]);
});

describe('resources in a script', () => {
  test("list and templates give every upstream's entries, merged, without the denied ones", async () => {
    const [uris, templates] = valueOf(
      await server.run({
        code: 'return [(await resources.list()).map((r) => r.uri), (await resources.templates()).map((t) => t.uriTemplate)]',
      }),
    ) as [string[], string[]];
    expect(uris.some((uri) => uri.startsWith('demo://resource/static/document/'))).toBe(true);
    expect(uris.filter((uri) => uri.startsWith('test://'))).toEqual([
      'test://static/a',
      'test://static/b',
      'test://shared',
      'test://fail',
    ]);
    expect(templates).toEqual(
      expect.arrayContaining(['demo://resource/dynamic/text/{resourceId}', 'test://item/{id}', 'test://big/{bytes}']),
    );
  });

  test('a read by exact URI and one by template URI each reach the upstream that offers it', async () => {
    const value = valueOf(
      await server.run({
        code: `const doc = (await resources.list()).find((r) => r.uri.startsWith("demo://resource/static/document/"));
const [a, item, dynamic, docRead] = await Promise.all([
  resources.read("test://static/a"),
  resources.read("test://item/42"),
  resources.read("demo://resource/dynamic/text/7"),
  resources.read(doc.uri),
]);
return [a.contents[0].text, item.contents[0].text, dynamic.contents[0].uri, docRead.contents[0].uri === doc.uri]`,
      }),
    );
    expect(value).toEqual(['test://static/a served by res', 'item 42 served by res', 'demo://resource/dynamic/text/7', true]);
  });

  test('an unknown URI is refused with what to do, a denied one as denied; nothing was sent', async () => {
    const result = await server.run({
      code: `const out = [];
for (const uri of ["nope://x", "test://static/c"]) {
  try { await resources.read(uri) } catch (e) { out.push(e.name + ": " + e.message) }
}
return out`,
    });
    expect(valueOf(result)).toEqual([
      'ToolRefused: RESOURCE_UNKNOWN: resources.read("nope://x") was refused: no upstream lists this URI or a resource template that matches it; resources.list() and resources.templates() show what can be read. Nothing was sent.',
      'ToolRefused: RESOURCE_DENIED: resources.read("test://static/c") was refused: the config\'s resources policy of upstream "res" does not allow this URI. Nothing was sent.',
    ]);
    expect(textOf(result)).toMatch(/^calls: 0 answered, 2 refused \(never sent\)$/m);
  });

  test("an upstream error on a read is a failed result, as a tool's is", async () => {
    const value = valueOf(
      await server.run({
        code: 'const r = await resources.read("test://fail"); return [r.isError, r.contents.length, r.content[0].text]',
      }),
    );
    expect(value).toEqual([true, 0, expect.stringContaining('this resource always fails')]);
  });

  test('a read past the result cap throws ResultTooLarge, saying the read took effect', async () => {
    const value = valueOf(
      await server.run({
        code: 'try { await resources.read("test://big/3000000") } catch (e) { return e.name + ": " + e.message }',
      }),
    );
    expect(value).toMatch(/^ResultTooLarge: The call took effect, but its result is \d+ bytes of JSON, past the cap of 2796202/);
  });

  test("a read the script never saw is named in the ending's call record by its URI", async () => {
    const result = await server.run({ code: 'resources.read("test://item/unseen"); throw new Error("gone before the answer")' });
    expect(textOf(result)).toMatch(
      /^ {2}resources\.read\("test:\/\/item\/unseen"\): (cancelled, may have taken effect|answered \(it took effect\), but the script ended before it read the answer)$/m,
    );
  });
});
