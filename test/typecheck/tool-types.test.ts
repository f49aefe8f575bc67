import ts from 'typescript';
import { beforeAll, describe, expect, test } from 'vitest';
import { looseTypeOf } from '../../src/catalog/declaration.js';
import type { CatalogTool, JsonSchema } from '../../src/catalog/types.js';
import { GUEST_GLOBALS } from '../../src/typecheck/guest-globals.js';
import { toolTypesOf } from '../../src/typecheck/tool-types.js';
import { everythingCatalog, toolOf } from './catalogs.js';

/** The compiler's errors of the declarations, read with the guest globals and the language's library. */
function errorsOf(declarations: string): string[] {
  const files = new Map([
    ['/globals.d.ts', GUEST_GLOBALS],
    ['/tools.d.ts', declarations],
  ]);
  const options: ts.CompilerOptions = { noEmit: true, lib: ['lib.esnext.d.ts'], types: [], strict: false };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => {
    const text = files.get(name);
    return text === undefined ? read(name, version) : ts.createSourceFile(name, text, version, true);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe("the declarations of server-everything's real catalog", () => {
  let catalog: readonly CatalogTool[];
  beforeAll(async () => {
    catalog = await everythingCatalog();
  });

  test('name each tool literally, its arguments and its structured result', () => {
    const { text } = toolTypesOf(catalog);
    expect(text).toContain('  "get-sum"(args: Input_get_sum): Promise<ToolResult<any>>;');
    expect(text).toContain('  "get-env"(args?: Input_get_env): Promise<ToolResult<any>>;');
    expect(text).toContain(
      '  "get-structured-content"(args: Input_get_structured_content): Promise<ToolResult<Output_get_structured_content>>;',
    );
    // An input without additionalProperties: false takes other keys; the output closes itself.
    expect(text).toContain('type Input_get_sum = { a: number; b: number; [key: string]: any };');
    expect(text).toContain('type Output_get_structured_content = { temperature: number; conditions: string; humidity: number };');
    expect(text).toContain(
      'type Input_get_structured_content = { location: "New York" | "Chicago" | "Los Angeles"; [key: string]: any };',
    );
  });

  test('compile with the guest globals and no error', () => {
    expect(errorsOf(toolTypesOf(catalog).text)).toEqual([]);
  });

  test('are made once per catalog, and anew for another', () => {
    expect(toolTypesOf(catalog)).toBe(toolTypesOf(catalog));
    expect(toolTypesOf([...catalog]).key).not.toBe(toolTypesOf(catalog).key);
  });
});

describe('a schema as the checker types it: never stricter than the schema', () => {
  test.each<[string, JsonSchema, string]>([
    [
      'an open object takes other keys',
      { type: 'object', properties: { a: { type: 'string' } } },
      '{ a?: string; [key: string]: any }',
    ],
    [
      'a closed object takes none',
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      '{ a?: string }',
    ],
    [
      'additionalProperties of a type still takes any key: a declared property may differ from it',
      { type: 'object', properties: { n: { type: 'number' } }, additionalProperties: { type: 'string' } },
      '{ n?: number; [key: string]: any }',
    ],
    ['a union is a union', { anyOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'],
    [
      'a tuple may be shorter and longer',
      { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
      '[string?, number?, ...any[]]',
    ],
    ['a closed tuple only shorter', { type: 'array', items: [{ type: 'string' }], additionalItems: false }, '[string?]'],
    ['an unknown type is any', { type: 'date' }, 'any'],
    ['a feature with no TypeScript form constrains nothing', { type: 'string', pattern: '^a', not: { const: 'b' } }, 'string'],
    ['an unresolved $ref is any', { $ref: 'https://example.com/schema' }, 'any'],
    [
      'a recursive $ref is any below its first level',
      {
        $ref: '#/$defs/N',
        $defs: { N: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/N' } } } } },
      },
      '{ kids?: any[]; [key: string]: any }',
    ],
    ['an empty schema is any', {}, 'any'],
  ])('%s', (_what, schema, expected) => {
    expect(looseTypeOf(schema)).toBe(expected);
  });

  test('an enum past 25 values is its values’ type, not a list cut short', () => {
    const values = Array.from({ length: 40 }, (_, i) => `v${i}`);
    expect(looseTypeOf({ enum: values })).toBe('string');
    expect(looseTypeOf({ enum: ['a', 'b'] })).toBe('"a" | "b"');
  });

  test('tool names that are no identifiers, and names that clash once made identifiers, get distinct types', () => {
    const catalog = [
      toolOf('get-sum', { type: 'object' }),
      toolOf('get_sum', { type: 'object' }),
      toolOf('a.b', { type: 'object' }),
    ];
    const { text, aliases } = toolTypesOf(catalog);
    expect(aliases).toEqual({ Input_get_sum: 'get-sum', Input_get_sum_2: 'get_sum', Input_a_b: 'a.b' });
    expect(errorsOf(text)).toEqual([]);
  });

  test('a denied tool is not declared (a call of it is the config’s refusal, not the script’s mistake)', () => {
    const denied = { ...toolOf('secret', { type: 'object' }), allowed: false };
    const types = toolTypesOf([toolOf('echo', { type: 'object' }), denied]);
    expect(types.text).not.toContain('secret');
    expect(types.denied).toEqual(['secret']);
  });
});
