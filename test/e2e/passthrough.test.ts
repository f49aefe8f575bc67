import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { fixturePath, nodeEntry, publishedEntry, writeConfig, valueOf } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';
import { rejection } from '../support/rejection.js';
import { until } from '../upstream/specs.js';

// One server for the file, in front of server-everything and two copies of our conformance
// fixture ("conf" and "conf2", both listing test://who and the test:// resources): resources,
// templates, prompts and completions pass through, named and routed as docs/upstreams.md says.
let server: InProcessServer;
const updates: string[] = [];

const FIXTURE = fixturePath('upstreams/conformance-everything.mjs');

beforeAll(async () => {
  const config = writeConfig({
    everything: nodeEntry(publishedEntry('server-everything'), ['stdio'], { deny: ['echo'] }),
    conf: nodeEntry(FIXTURE, ['first'], {
      resources: { deny: ['test://static-binary'] },
      prompts: { deny: ['test_prompt_with_image'] },
    }),
    conf2: nodeEntry(FIXTURE, ['second']),
  });
  // No pool: what is checked is what passes through; the one run makes its child.
  server = await startInProcess([
    '--config',
    config,
    '--pool',
    '0',
    '--expose',
    'everything__get-structured-*',
    '--expose',
    'everything__echo',
  ]);
  server.client.setNotificationHandler(
    'notifications/resources/updated',
    (notification) => void updates.push(notification.params.uri),
  );
});

afterAll(async () => {
  expect(await server.close()).toEqual([]);
});

/** Every page of a list, following nextCursor. */
async function allPages<T>(
  list: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const result = await list(cursor);
    items.push(...result.items);
    cursor = result.nextCursor;
    if (cursor === undefined) return items;
  }
  throw new Error('the list did not end within 50 pages');
}

const resourceUris = (client: Client): Promise<string[]> =>
  allPages(async (cursor) => {
    const page = await client.listResources(cursor === undefined ? {} : { cursor });
    return { items: page.resources.map((resource) => resource.uri), nextCursor: page.nextCursor };
  });

describe('resources pass through', () => {
  test('the server declares resources, prompts and completions, since its upstreams offer them', () => {
    const capabilities = server.client.getServerCapabilities();
    expect(capabilities?.resources).toEqual({ listChanged: true, subscribe: true });
    expect(capabilities?.prompts).toEqual({ listChanged: true });
    expect(capabilities?.completions).toEqual({});
  });

  test('resources/list merges every upstream in config order, each URI once, the policy applied', async () => {
    const uris = await resourceUris(server.client);
    expect(uris).toContain('demo://resource/static/document/architecture.md');
    expect(uris.filter((uri) => uri === 'test://static-text')).toHaveLength(1);
    expect(uris.filter((uri) => uri === 'test://who')).toHaveLength(1);
    // conf denies it, and conf2's copy is a duplicate of conf's: the first in config order decides.
    expect(uris).not.toContain('test://static-binary');
    expect(uris.indexOf('demo://resource/static/document/architecture.md')).toBeLessThan(uris.indexOf('test://static-text'));
  });

  test('a cursor this server never gave is -32602, saying to pass nextCursor as it came', async () => {
    const error = await rejection(server.client.listResources({ cursor: 'not-ours' }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(
      'the cursor "not-ours" is not one this server gave; pass the nextCursor of the previous page as it came',
    );
  });

  test('a URI listed by two upstreams is read from the first in the config, and the log says so', async () => {
    const read = await server.client.readResource({ uri: 'test://who' });
    expect(read.contents).toEqual([{ uri: 'test://who', mimeType: 'text/plain', text: 'first' }]);
    expect(server.stderr()).toContain(
      'codemode-mcp: resource "test://who" is listed by upstream "conf" and upstream "conf2"; reads go to "conf", the first in the config',
    );
  });

  test('a listed resource and a template resource are read from their upstreams', async () => {
    const text = await server.client.readResource({ uri: 'test://static-text' });
    expect(text.contents).toEqual([
      { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
    ]);
    const templated = await server.client.readResource({ uri: 'test://template/7/data' });
    expect(templated.contents[0]).toMatchObject({
      uri: 'test://template/7/data',
      text: '{"id":"7","templateTest":true,"data":"Data for ID: 7"}',
    });
    const dynamic = await server.client.readResource({ uri: 'demo://resource/dynamic/text/3' });
    expect(dynamic.contents[0]?.uri).toBe('demo://resource/dynamic/text/3');
  });

  test('resources/templates/list names each template once, as its upstream wrote it', async () => {
    const templates = await allPages(async (cursor) => {
      const page = await server.client.listResourceTemplates(cursor === undefined ? {} : { cursor });
      return { items: page.resourceTemplates.map((template) => template.uriTemplate), nextCursor: page.nextCursor };
    });
    expect(templates.filter((template) => template === 'test://template/{id}/data')).toHaveLength(1);
    expect(templates).toContain('demo://resource/dynamic/text/{resourceId}');
  });

  test('an unknown URI and a denied one are "resource not found", naming the URI and why', async () => {
    const unknown = await rejection(server.client.readResource({ uri: 'test://nowhere' }));
    // We throw the spec's -32002; the SDK sends it as -32602, with the URI in its data (see docs/upstreams.md, "What passes through").
    expect([unknown.code, unknown.data]).toEqual([-32602, { uri: 'test://nowhere' }]);
    expect(unknown.message).toContain(
      'Resource not found: "test://nowhere": no upstream lists it or a resource template that matches it',
    );
    const denied = await rejection(server.client.readResource({ uri: 'test://static-binary' }));
    expect(denied.message).toContain(`the config's "resources" policy for upstream "conf" leaves it out`);
  });

  test("a subscriber receives the upstream's notifications/resources/updated", async () => {
    // The fixture says the resource was updated as soon as it is subscribed to.
    await server.client.subscribeResource({ uri: 'test://static-text' });
    await until(() => updates.includes('test://static-text'));
    await server.client.unsubscribeResource({ uri: 'test://static-text' });
    // server-everything sends an update for each subscribed URI when its tool is toggled.
    await server.client.subscribeResource({ uri: 'demo://resource/static/document/architecture.md' });
    await server.run({ code: 'return tools["everything__toggle-subscriber-updates"]({})' });
    await until(() => updates.includes('demo://resource/static/document/architecture.md'));
    await server.client.unsubscribeResource({ uri: 'demo://resource/static/document/architecture.md' });
  });
});

describe('prompts and completions pass through', () => {
  test('prompts are named <server>__<prompt>, a denied one left out', async () => {
    const names = await allPages(async (cursor) => {
      const page = await server.client.listPrompts(cursor === undefined ? {} : { cursor });
      return { items: page.prompts.map((prompt) => prompt.name), nextCursor: page.nextCursor };
    });
    expect(names).toEqual(
      expect.arrayContaining(['everything__args-prompt', 'conf__test_prompt_with_arguments', 'conf2__test_prompt_with_image']),
    );
    expect(names).not.toContain('conf__test_prompt_with_image');
  });

  test('a prompt with arguments is got from its upstream', async () => {
    const prompt = await server.client.getPrompt({
      name: 'conf__test_prompt_with_arguments',
      arguments: { arg1: 'hello', arg2: 'world' },
    });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" } },
    ]);
  });

  test('an unknown prompt is -32602 naming the close one; a denied one says the policy leaves it out', async () => {
    const unknown = await rejection(server.client.getPrompt({ name: 'everything__args-promt' }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toContain('Unknown prompt "everything__args-promt"; did you mean "everything__args-prompt"?');
    const denied = await rejection(server.client.getPrompt({ name: 'conf__test_prompt_with_image' }));
    expect(denied.message).toContain(`the config's "prompts" policy for upstream "conf" leaves it out`);
  });

  test("a prompt's argument and a template's variable are completed by their upstreams", async () => {
    const department = await server.client.complete({
      ref: { type: 'ref/prompt', name: 'everything__completable-prompt' },
      argument: { name: 'department', value: 'E' },
    });
    expect(department.completion.values).toEqual(['Engineering']);
    const id = await server.client.complete({
      ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
      argument: { name: 'id', value: 'tes' },
    });
    expect(id.completion.values).toEqual(['test', 'testing', 'tested']);
  });
});

describe('tools offered directly (expose)', () => {
  test('an exposed tool is listed beside code_execution with its own schemas and annotations', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['code_execution', 'everything__get-structured-content']);
    const exposed = tools[1]!;
    expect(exposed.outputSchema).toMatchObject({ type: 'object' });
    expect(exposed.annotations).toMatchObject({ readOnlyHint: true });
    // Scripts still have it.
    const names = valueOf(await server.run({ code: 'return ALL_TOOLS.map((tool) => tool.name)' })) as string[];
    expect(names).toContain('everything__get-structured-content');
  });

  test('an exposed tool is called directly and answers with its structured output', async () => {
    const result = await server.client.callTool({
      name: 'everything__get-structured-content',
      arguments: { location: 'New York' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
  });

  test('a denied tool is not exposed, and the log says why', async () => {
    expect(server.stderr()).toContain(
      'codemode-mcp: expose "everything__echo" matches "everything__echo", which the config denies (tool "echo" of upstream "everything"); it is not exposed',
    );
    const refused = await rejection(server.client.callTool({ name: 'everything__echo', arguments: { message: 'x' } }));
    expect(refused.message).toContain(
      'Unknown tool "everything__echo": this server offers "code_execution" and the tools it exposes (everything__get-structured-content)',
    );
  });
});
