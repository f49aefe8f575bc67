import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, test } from 'vitest';
import { listToolPages, TOOLS_LIST_MAX_PAGES } from '../../src/upstream/tools/tool-pages.js';
import { pagedTools } from './in-memory.js';

let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

/** A client linked in memory to a server that sends `pages`. */
async function linkedTo(pages: Parameters<typeof pagedTools>[0]): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await pagedTools(pages).connect(serverSide);
  client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(clientSide);
  return client;
}

const list = (linked: Client): ReturnType<typeof listToolPages> =>
  listToolPages(linked, { server: 'paged', timeoutMs: 10_000, log: () => {} });

describe('listToolPages', () => {
  test('follows nextCursor page by page, in order', async () => {
    const linked = await linkedTo([
      { tools: ['a', 'b'], nextCursor: '2' },
      { tools: ['c', 'd'], nextCursor: '4' },
      { tools: ['e'] },
    ]);
    expect((await list(linked)).map((tool) => tool.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  test('a cursor sent twice breaks the listing, naming the cursor', async () => {
    const linked = await linkedTo([
      { tools: ['a'], nextCursor: 'x' },
      { tools: ['b'], nextCursor: 'x' },
    ]);
    await expect(list(linked)).rejects.toThrow('tools/list sent the cursor "x" twice');
  });

  test(`a listing that has not ended within ${TOOLS_LIST_MAX_PAGES} pages breaks`, async () => {
    const pages = Array.from({ length: TOOLS_LIST_MAX_PAGES + 1 }, (_, i) => ({ tools: [`t${i}`], nextCursor: `c${i}` }));
    const linked = await linkedTo(pages);
    await expect(list(linked)).rejects.toThrow(`tools/list did not end within ${TOOLS_LIST_MAX_PAGES} pages`);
  });
});
