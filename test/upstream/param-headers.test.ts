import { describe, expect, test } from 'vitest';
import { paramHeaderValues, scanParamHeaders } from '../../src/support/param-headers.js';

const schema = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'object',
  properties,
  ...extra,
});

describe("a tool's x-mcp-header marks (SEP-2243)", () => {
  test('marks on string, integer and boolean properties, at any depth through properties, are found', () => {
    const scan = scanParamHeaders(
      schema({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        options: { type: 'object', properties: { verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' } } },
        count: { type: 'integer', 'x-mcp-header': 'Count' },
        query: { type: 'string' },
      }),
    );
    expect(scan).toEqual({
      valid: true,
      headers: [
        { path: ['region'], name: 'Region' },
        { path: ['options', 'verbose'], name: 'Verbose' },
        { path: ['count'], name: 'Count' },
      ],
    });
  });

  test.each([
    ['an empty name', schema({ a: { type: 'string', 'x-mcp-header': '' } }), 'a: x-mcp-header "" is not an HTTP token'],
    ['a space in the name', schema({ a: { type: 'string', 'x-mcp-header': 'My Region' } }), 'is not an HTTP token'],
    ['a number', schema({ a: { type: 'number', 'x-mcp-header': 'A' } }), 'not "number"'],
    ['an object', schema({ a: { type: 'object', 'x-mcp-header': 'A' } }), 'not "object"'],
    [
      'the same name twice, in another case',
      schema({ a: { type: 'string', 'x-mcp-header': 'Name' }, b: { type: 'string', 'x-mcp-header': 'name' } }),
      'b: x-mcp-header "name" repeats "Name"',
    ],
    [
      'a mark under items',
      schema({ a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } }),
      'a.<items>: x-mcp-header is allowed only on a property reached through "properties"',
    ],
    ['a mark under $defs', schema({}, { $defs: { a: { type: 'string', 'x-mcp-header': 'A' } } }), 'reached through "properties"'],
  ])('%s breaks the rules', (_what, inputSchema, reason) => {
    const scan = scanParamHeaders(inputSchema);
    expect(scan.valid).toBe(false);
    expect(scan.valid === false && scan.reason).toContain(reason);
  });

  test("a call's values: absent and null left out, primitives as text, what is not plain ASCII in base64", () => {
    const headers = [
      { path: ['a'], name: 'A' },
      { path: ['b'], name: 'B' },
      { path: ['c'], name: 'C' },
      { path: ['d'], name: 'D' },
      { path: ['e'], name: 'E' },
      { path: ['f'], name: 'F' },
    ];
    expect(
      paramHeaderValues(headers, { a: 'us-west1', b: 42, c: false, d: null, e: ' padded', f: { not: 'primitive' } }),
    ).toEqual({
      'Mcp-Param-A': 'us-west1',
      'Mcp-Param-B': '42',
      'Mcp-Param-C': 'false',
      'Mcp-Param-E': `=?base64?${Buffer.from(' padded').toString('base64')}?=`,
    });
  });
});
