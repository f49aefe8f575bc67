import { specTypeSchemas } from '@modelcontextprotocol/client';
import { ToolSchema as V1ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { declarationOf } from '../../src/catalog/declaration.js';
import { listedTool } from '../../src/mcp/exposed-tools.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import {
  admitTools,
  PLACEHOLDER_INPUT_SCHEMA,
  SCHEMA_MAX_BYTES,
  SCHEMA_MAX_DEPTH,
} from '../../src/upstream/tools/tool-admission.js';
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

    const deep = hub.catalog().tools.find((tool) => tool.name === 'deep')!;
    expect(deep.inputSchema).toEqual(PLACEHOLDER_INPUT_SCHEMA);
    expect(deep.note).toBe(
      `its inputSchema is nested deeper than ${SCHEMA_MAX_DEPTH} levels, so it is shown as taking any arguments (the upstream still checks them)`,
    );
    expect(lines).toContain(`codemode-mcp: upstream "odd": tool "deep": ${deep.note}`);
    expect(declarationOf(deep)).toContain(`/* ${deep.note} */\ntools["deep"](args?: { [key: string]: unknown })`);

    // A cycle through $ref is a schema like any other: kept, and its declaration names the loop.
    const cyclic = hub.catalog().tools.find((tool) => tool.name === 'cyclic')!;
    expect(cyclic.note).toBeUndefined();
    expect(declarationOf(cyclic)).toContain('tools["cyclic"]');
    expect(hub.catalog().tools.map((tool) => tool.name)).toEqual([
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

describe('every tool we list is valid MCP', () => {
  // Regression: an exposed tool with `inputSchema: {type: "string"}` was listed as the upstream wrote
  // it, and an SDK 1.x client's listTools() threw, so that client couldn't list code_execution either.
  const offenders: [string, Record<string, unknown>, RegExp][] = [
    [
      'an inputSchema of type "string"',
      { inputSchema: { type: 'string' } },
      /its inputSchema has type "string", where MCP requires "object"/,
    ],
    [
      'an inputSchema with no type',
      { inputSchema: { properties: { a: { type: 'string' } } } },
      /its inputSchema has type nothing/,
    ],
    [
      'an inputSchema typed as a list of types',
      { inputSchema: { type: ['object', 'null'] } },
      /its inputSchema has type an array/,
    ],
    [
      'properties that are a list',
      { inputSchema: { type: 'object', properties: [] } },
      /its inputSchema has properties an array/,
    ],
    [
      'a property that is a boolean schema',
      { inputSchema: { type: 'object', properties: { a: true } } },
      /property "a" as boolean true/,
    ],
    ['required that is a string', { inputSchema: { type: 'object', required: 'a' } }, /its inputSchema has required "a"/],
    ['required that holds a number', { inputSchema: { type: 'object', required: [1] } }, /its inputSchema has required an array/],
    ['an inputSchema that is a list', { inputSchema: [] }, /its inputSchema is not a JSON Schema object/],
    [
      'an outputSchema of type "array"',
      { inputSchema: { type: 'object' }, outputSchema: { type: 'array' } },
      /its outputSchema has type "array".*structuredContent is shown as unknown/,
    ],
    [
      'an outputSchema with a null property',
      { inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: null } } },
      /its outputSchema has property "n" as null/,
    ],
    [
      'an annotation hint that is a string',
      { inputSchema: { type: 'object' }, annotations: { readOnlyHint: 'yes' } },
      /its annotations aren't MCP's \(readOnlyHint must be true or false.*listed without them/,
    ],
    [
      'annotations that are a string',
      { inputSchema: { type: 'object' }, annotations: 'safe' },
      /its annotations are "safe", not an object/,
    ],
  ];

  test.each(offenders)(
    'a tool with %s is listed with a placeholder and a note, and both SDK lines accept it',
    (_shape, fields, note) => {
      const { tools, problems } = admitTools([{ name: 't', description: 'd', ...fields }]);
      const tool = tools[0]!;
      expect(tool.note).toMatch(note);
      expect(problems).toEqual([`tool "t": ${tool.note}`]);
      const listed = listedTool({ ...tool, server: 'up', upstreamName: 't', allowed: true });
      expect(V1ToolSchema.safeParse(listed).error).toBeUndefined();
      expect(specTypeSchemas.Tool['~standard'].validate(listed)).not.toHaveProperty('issues');
    },
  );

  test('a valid tool keeps its schemas and annotations as sent, unknown keywords and keys included', () => {
    const fields = {
      inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
      outputSchema: { type: 'object', properties: { n: { type: 'number' } }, $comment: 'kept' },
      annotations: { readOnlyHint: true, title: 'T', vendorHint: 'kept' },
    };
    const { tools, problems } = admitTools([{ name: 't', ...fields }]);
    expect(problems).toEqual([]);
    expect(tools[0]).toEqual({ name: 't', description: '', ...fields });
  });
});
