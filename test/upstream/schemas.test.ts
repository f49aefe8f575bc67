import { describe, expect, test } from 'vitest';
import { declarationOf } from '../../src/catalog/declaration.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import { admitTools, PLACEHOLDER_INPUT_SCHEMA, SCHEMA_MAX_BYTES, SCHEMA_MAX_DEPTH } from '../../src/upstream/tool-admission.js';
import { collectLog, fixture, hubPerTest, textOf } from './specs.js';

const scratch = hubPerTest();

function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < levels; level++) schema = { type: 'object', properties: { inner: schema } };
  return schema;
}

describe('a tool whose schema cannot be rendered', () => {
  // Regression: the SDK's check of the whole tools/list page recursed through the 1,000-deep
  // schema, threw "Maximum call stack size exceeded", and the upstream was down, retried forever.
  test('a 1,000-deep and a cyclic inputSchema leave the upstream up and every sibling callable', async () => {
    const { lines, log } = collectLog();
    scratch.hub = new UpstreamHub([fixture('odd', 'misbehaving.mjs', { args: ['--deep-schema', '1000', '--cyclic-schema'] })], {
      log,
    });
    await scratch.hub.start();
    const hub = scratch.hub;
    expect(hub.upstreamStatus()).toEqual([{ name: 'odd', state: 'ready', toolCount: 11 }]);
    expect(textOf(await hub.callTool('echo', { text: 'sibling' }))).toBe('sibling');
    expect(textOf(await hub.callTool('pid', {}))).toMatch(/^\d+$/);

    const deep = hub.tools().find((tool) => tool.name === 'deep')!;
    expect(deep.inputSchema).toEqual(PLACEHOLDER_INPUT_SCHEMA);
    expect(deep.note).toBe(
      `its inputSchema is nested deeper than ${SCHEMA_MAX_DEPTH} levels, so it is shown as taking any arguments (the upstream still checks them)`,
    );
    expect(lines).toContain(`codemode-mcp: upstream "odd": tool "deep": ${deep.note}`);
    expect(declarationOf(deep)).toContain(`/* ${deep.note} */\ntools["deep"](args?: { [key: string]: unknown })`);

    // A cycle through $ref is a schema like any other: kept, and its declaration names the loop.
    const cyclic = hub.tools().find((tool) => tool.name === 'cyclic')!;
    expect(cyclic.note).toBeUndefined();
    expect(declarationOf(cyclic)).toContain('tools["cyclic"]');
    expect(hub.tools().map((tool) => tool.name)).toEqual([
      'echo',
      'pid',
      'big',
      'null-result',
      'no-result',
      'invalid-result',
      'string-result',
      'noise',
      'proto-keys',
      'deep',
      'cyclic',
    ]);
  });
});

describe('admitTools', () => {
  test('keeps each tool on its own: a bad schema gets a placeholder and a note, a nameless entry is left out', () => {
    const huge = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 20_000 }, (_, i) => [`p${i}`, { type: 'string', description: 'x'.repeat(20) }]),
      ),
    };
    const { tools, problems } = admitTools([
      { name: 'fine', description: 'a fine tool', inputSchema: { type: 'object', properties: { a: { type: 'number' } } } },
      { name: 'deep', inputSchema: nested(SCHEMA_MAX_DEPTH) },
      { name: 'huge', inputSchema: huge },
      { name: 'no-schema' },
      { name: 'bad-output', inputSchema: { type: 'object' }, outputSchema: 'not a schema' },
      { description: 'no name' },
      'not an object',
    ]);
    expect(tools.map((tool) => [tool.name, tool.note === undefined])).toEqual([
      ['fine', true],
      ['deep', false],
      ['huge', false],
      ['no-schema', false],
      ['bad-output', false],
    ]);
    expect(tools[0]).toEqual({
      name: 'fine',
      description: 'a fine tool',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
    });
    expect(tools[2]!.note).toMatch(
      new RegExp(`^its inputSchema is \\d+ bytes of JSON, past ${SCHEMA_MAX_BYTES}, so it is shown as taking any arguments`),
    );
    expect(tools[3]).toMatchObject({
      inputSchema: PLACEHOLDER_INPUT_SCHEMA,
      note: expect.stringMatching(/^its inputSchema is missing/),
    });
    expect(tools[4]).toEqual({
      name: 'bad-output',
      description: '',
      inputSchema: { type: 'object' },
      note: 'its outputSchema is not a JSON Schema object, so its structuredContent is shown as unknown',
    });
    expect(problems.filter((problem) => problem.includes('has no name'))).toEqual([
      "tool #6 of the list has no name, so it can't be called; left out",
      "tool #7 of the list has no name, so it can't be called; left out",
    ]);
  });

  test('a schema exactly as deep as the limit is kept', () => {
    // nested(n) is 2n + 1 levels of JSON: `properties` and the property each add one.
    const levels = Math.floor((SCHEMA_MAX_DEPTH - 1) / 2);
    const { tools } = admitTools([{ name: 'ok', inputSchema: nested(levels) }]);
    expect(tools[0]!.note).toBeUndefined();
  });
});
