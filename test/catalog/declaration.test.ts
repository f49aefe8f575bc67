import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { DECLARATION_MAX_CHARS, declarationOf } from '../../src/catalog/declaration.js';
import type { CatalogTool, JsonSchema } from '../../src/catalog/types.js';

function toolOf(inputSchema: JsonSchema, extra: Partial<CatalogTool> = {}): CatalogTool {
  return { name: 't', server: 's', upstreamName: 't', description: '', inputSchema, allowed: true, ...extra };
}

/** The args type alone, as declarationOf writes it. */
function argsOf(inputSchema: JsonSchema): string {
  const text = declarationOf(toolOf(inputSchema));
  const start = text.indexOf('(args') + '(args'.length;
  const end = text.lastIndexOf('): Promise<');
  return text.slice(start, end).replace(/^\??: /, '');
}

function propertyTypeOf(schema: JsonSchema): string {
  return argsOf({ type: 'object', properties: { p: schema }, required: ['p'] }).replace(/^\{ p: (.*) \}$/s, '$1');
}

/** Syntax errors of a declaration, read as a member of an interface, as TypeScript reports them. */
function syntaxErrorsOf(declaration: string): string[] {
  const source = `type Content = unknown;\ninterface Tools {\n${declaration.replace(/^tools\[/m, '[')}\n}\n`;
  const { diagnostics = [] } = ts.transpileModule(source, { reportDiagnostics: true });
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('declarationOf', () => {
  test('writes the tool, its described arguments and its structured result as TypeScript', () => {
    const text = declarationOf(
      toolOf(
        {
          type: 'object',
          properties: { a: { type: 'number', description: 'First number' }, b: { type: 'number' }, c: { type: 'string' } },
          required: ['a', 'b'],
        },
        {
          name: 'get-sum',
          description: 'Adds two numbers.',
          outputSchema: { type: 'object', properties: { result: { type: 'number' } }, required: ['result'] },
        },
      ),
    );
    expect(text).toBe(
      [
        '/** Adds two numbers. */',
        'tools["get-sum"](args: {',
        '  /** First number */',
        '  a: number;',
        '  b: number;',
        '  c?: string;',
        '}): Promise<{ content: Content[]; structuredContent?: { result: number }; isError?: boolean }>',
      ].join('\n'),
    );
    expect(syntaxErrorsOf(text)).toEqual([]);
  });

  test('maps integer to number, a list of types to a union, and null to null', () => {
    expect(propertyTypeOf({ type: 'integer' })).toBe('number');
    expect(propertyTypeOf({ type: ['string', 'null'] })).toBe('string | null');
    expect(propertyTypeOf({ type: 'null' })).toBe('null');
    expect(propertyTypeOf({ type: 'boolean', nullable: true })).toBe('boolean | null');
  });

  test('writes enum and const as literal types', () => {
    expect(propertyTypeOf({ type: 'string', enum: ['a', 'b c', 'd"e'] })).toBe('"a" | "b c" | "d\\"e"');
    expect(propertyTypeOf({ enum: [1, true, null] })).toBe('1 | true | null');
    expect(propertyTypeOf({ type: 'string', const: 'fixed' })).toBe('"fixed"');
  });

  test('counts the values of a long enum in a comment instead of listing them all', () => {
    const type = propertyTypeOf({ enum: Array.from({ length: 40 }, (_, i) => `v${i}`) });
    expect(type).toContain('"v24" /* and 15 more values: see ALL_TOOLS */');
    expect(type).not.toContain('"v25"');
  });

  test('turns additionalProperties true or a schema into an index signature', () => {
    expect(propertyTypeOf({ type: 'object', additionalProperties: { type: 'number' } })).toBe('{ [key: string]: number }');
    expect(propertyTypeOf({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true })).toBe(
      '{ a?: string; [key: string]: unknown }',
    );
    expect(propertyTypeOf({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false })).toBe(
      '{ a?: string }',
    );
    expect(propertyTypeOf({ type: 'object', patternProperties: { '^x-': { type: 'string' } } })).toBe(
      '{ [key: string]: string }',
    );
    expect(propertyTypeOf({ type: 'object' })).toBe('{ [key: string]: unknown }');
    expect(propertyTypeOf({ type: 'object', properties: {} })).toBe('{}');
  });

  test('writes items as an array and prefixItems or an items list as a tuple', () => {
    expect(propertyTypeOf({ type: 'array', items: { type: 'string' } })).toBe('string[]');
    expect(propertyTypeOf({ type: 'array', items: { type: ['string', 'number'] } })).toBe('(string | number)[]');
    expect(propertyTypeOf({ type: 'array' })).toBe('unknown[]');
    expect(propertyTypeOf({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false })).toBe(
      '[string, number]',
    );
    expect(propertyTypeOf({ type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'boolean' } })).toBe(
      '[string, ...boolean[]]',
    );
    expect(propertyTypeOf({ type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false })).toBe(
      '[string, number]',
    );
    expect(propertyTypeOf({ type: 'array', items: { type: 'array', items: { type: 'number' } } })).toBe('number[][]');
  });

  test('writes anyOf and oneOf as unions and allOf as an intersection', () => {
    expect(propertyTypeOf({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('string | null');
    expect(propertyTypeOf({ oneOf: [{ const: 'a' }, { type: 'number' }] })).toBe('"a" | number');
    expect(
      propertyTypeOf({
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] },
        ],
      }),
    ).toBe('{ a: string } & { b: number }');
    expect(propertyTypeOf({ allOf: [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, { enum: ['x', 1] }] })).toBe(
      '(string | number) & ("x" | 1)',
    );
    expect(propertyTypeOf({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } })).toBe(
      '(string | number)[]',
    );
  });

  test('inlines a $ref to #/$defs or #/definitions, and a JSON pointer into the same schema', () => {
    const point = { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] };
    expect(
      argsOf({ type: 'object', properties: { p: { $ref: '#/$defs/Point' } }, required: ['p'], $defs: { Point: point } }),
    ).toBe('{ p: { x: number } }');
    expect(argsOf({ type: 'object', properties: { p: { $ref: '#/definitions/Point' } }, definitions: { Point: point } })).toBe(
      '{ p?: { x: number } }',
    );
    // zod-to-json-schema 3.25 points a schema used twice at its first place.
    expect(argsOf({ type: 'object', properties: { home: point, work: { $ref: '#/properties/home' } }, required: ['home'] })).toBe(
      '{ home: { x: number }; work?: { x: number } }',
    );
    expect(argsOf({ type: 'object', properties: { p: { $ref: 'https://example.com/point.json' } } })).toBe('{ p?: unknown }');
    expect(argsOf({ type: 'object', properties: { p: { $ref: '#/$defs/Missing' } } })).toBe('{ p?: unknown }');
  });

  test('names the def instead of expanding a recursive $ref again', () => {
    const schema = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/Node' } },
      required: ['root'],
      $defs: {
        Node: {
          type: 'object',
          properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
          required: ['value', 'children'],
        },
      },
    };
    expect(argsOf(schema)).toBe('{ root: { value: number; children: Node[] } }');
    expect(propertyTypeOf({ type: 'object', properties: { self: { $ref: '#' } } })).toBe('{ self?: { p: { self?: Root } } }');
  });

  test('notes a default, a format and bounds in the property comment', () => {
    const text = argsOf({
      type: 'object',
      properties: {
        count: { type: 'number', description: 'How many', default: 3, minimum: 1, maximum: 10 },
        url: { type: 'string', format: 'uri' },
        mode: { type: 'string', enum: ['a', 'b'], default: 'a', deprecated: true },
      },
    });
    expect(text).toContain('/** How many @default 3 @minimum 1 @maximum 10 */\n  count?: number;');
    expect(text).toContain('/** @format uri */\n  url?: string;');
    expect(text).toContain('/** @default "a" @deprecated */\n  mode?: "a" | "b";');
  });

  test('keeps a property comment to one trimmed line and cannot close it early', () => {
    const text = argsOf({
      type: 'object',
      properties: { a: { type: 'string', description: '  First line\n\n  second line */ done  ' } },
    });
    expect(text).toContain('  /** First line second line *\\/ done */\n  a?: string;');
    const long = argsOf({ type: 'object', properties: { a: { type: 'string', description: 'word '.repeat(200) } } });
    const comment = long.split('\n')[1] ?? '';
    expect(comment.length).toBeLessThan(220);
    expect(comment.endsWith('… */')).toBe(true);
  });

  test('quotes property names that are not identifiers', () => {
    expect(
      argsOf({ type: 'object', properties: { ok_name$: {}, 'kebab-case': {}, 'with space': {}, '1st': {}, 'q"uote': {} } }),
    ).toBe(
      [
        '{',
        '  ok_name$?: unknown;',
        '  "kebab-case"?: unknown;',
        '  "with space"?: unknown;',
        '  "1st"?: unknown;',
        '  "q\\"uote"?: unknown;',
        '}',
      ].join('\n'),
    );
  });

  test('indents nested objects and aligns their closing braces', () => {
    const text = argsOf({
      type: 'object',
      properties: {
        user: {
          type: 'object',
          description: 'Who',
          properties: {
            name: { type: 'string', description: 'Full name' },
            address: { type: 'object', properties: { city: { type: 'string', description: 'City' } } },
          },
          required: ['name'],
        },
      },
      required: ['user'],
    });
    expect(text).toBe(
      [
        '{',
        '  /** Who */',
        '  user: {',
        '    /** Full name */',
        '    name: string;',
        '    address?: {',
        '      /** City */',
        '      city?: string;',
        '    };',
        '  };',
        '}',
      ].join('\n'),
    );
  });

  test('makes args optional when the schema requires nothing', () => {
    expect(declarationOf(toolOf({ type: 'object', properties: {} }))).toContain('tools["t"](args?: {})');
    expect(declarationOf(toolOf({ type: 'object', properties: { a: {} }, required: ['a'] }))).toContain('tools["t"](args: {');
  });

  test('writes a multi-line tool description as a doc block', () => {
    const text = declarationOf(
      toolOf({ type: 'object', properties: {} }, { description: 'Reads a file.\n\n\n\nArgs:\n  path: where' }),
    );
    expect(text.startsWith('/**\n * Reads a file.\n *\n * Args:\n *   path: where\n */\ntools["t"]')).toBe(true);
  });

  test('renders what zod 4 emits, recursive types and discriminated unions included', () => {
    const Node: z.ZodType = z.object({
      value: z.number(),
      get children() {
        return z.array(Node);
      },
    });
    const schema = z.toJSONSchema(
      z.object({
        tree: Node,
        tags: z.record(z.string(), z.number()),
        pair: z.tuple([z.string(), z.number()]),
        mail: z.email().optional(),
        note: z.string().nullable().default(null),
        kind: z.discriminatedUnion('type', [
          z.object({ type: z.literal('a'), a: z.string() }),
          z.object({ type: z.literal('b') }),
        ]),
      }),
    ) as JsonSchema;
    const text = declarationOf(toolOf(schema));
    expect(syntaxErrorsOf(text)).toEqual([]);
    expect(text).toContain('tree: { value: number; children: __schema0[] };');
    expect(text).toContain('tags: { [key: string]: number };');
    expect(text).toContain('pair: [string, number];');
    expect(text).toMatch(/\/\*\* @format email @pattern .*\*\/\n {2}mail\?: string;/);
    expect(text).toContain('/** @default null */\n  note: string | null;');
    expect(text).toContain('kind: { type: "a"; a: string } | { type: "b" };');
  });

  test('renders what zod-to-json-schema emits for a recursive def at the root', () => {
    // As zod-to-json-schema 3.25 emits zodToJsonSchema(Cat, 'Cat') for a z.lazy Cat.
    const schema = {
      $ref: '#/definitions/Cat',
      definitions: {
        Cat: {
          type: 'object',
          properties: { name: { type: 'string' }, kids: { type: 'array', items: { $ref: '#/definitions/Cat' } } },
          required: ['name', 'kids'],
          additionalProperties: false,
        },
      },
      $schema: 'http://json-schema.org/draft-07/schema#',
    };
    expect(declarationOf(toolOf(schema))).toContain('tools["t"](args: { name: string; kids: Cat[] }): Promise<');
  });

  test(`cuts a declaration past ${DECLARATION_MAX_CHARS.toLocaleString('en-US')} characters at a line and says so`, () => {
    const properties = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`field${i}`, { type: 'string', description: `The value of field number ${i}` }]),
    );
    const text = declarationOf(toolOf({ type: 'object', properties }));
    expect(text.length).toBeLessThanOrEqual(DECLARATION_MAX_CHARS);
    expect(text.endsWith('\n/* … cut at 4,000 characters: the full schemas are in ALL_TOOLS */')).toBe(true);
    expect(text).toContain('field0?: string;');
  });

  test('shows nesting past the depth cap as unknown with a pointer to ALL_TOOLS', () => {
    let schema: JsonSchema = { type: 'string' };
    for (let i = 0; i < 20; i += 1) schema = { type: 'object', properties: { d: schema }, required: ['d'] };
    const text = declarationOf(toolOf(schema));
    expect(text).toContain('unknown /* deeper levels: see ALL_TOOLS */');
    expect(syntaxErrorsOf(text)).toEqual([]);
  });

  test('stays small and quick on a schema whose refs fan out exponentially', () => {
    // Quick as in work done, not time taken (a loaded machine is slow): every read of a def's field
    // is counted, and a walk of all 10^9 paths, which would read billions, is stopped at a bound.
    const readsMax = 100_000;
    let reads = 0;
    const counted = (schema: JsonSchema): JsonSchema =>
      new Proxy(schema, {
        get: (target, key, receiver) => {
          if (++reads > readsMax) throw new Error(`the declaration read the schema's defs more than ${readsMax} times`);
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
    const $defs: Record<string, JsonSchema> = { L9: counted({ type: 'string' }) };
    for (let level = 8; level >= 0; level -= 1) {
      $defs[`L${level}`] = counted({
        type: 'object',
        properties: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { $ref: `#/$defs/L${level + 1}` }])),
      });
    }
    const text = declarationOf(toolOf({ $ref: '#/$defs/L0', $defs }));
    // (The throw past the bound is caught by the renderer's fallback to unknown: the count says it.)
    expect(reads).toBeLessThanOrEqual(readsMax);
    expect(text.length).toBeLessThanOrEqual(DECLARATION_MAX_CHARS);
    expect(text).toContain('cut at 4,000 characters');
  });

  test('never throws on odd schemas, and falls back to unknown', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    const hostile = {
      type: 'object',
      get properties(): never {
        throw new Error('boom');
      },
    };
    const odd: unknown[] = [
      null,
      42,
      'object',
      [],
      {},
      { type: 42 },
      { type: 'frobnicate' },
      { type: 'object', properties: 'nope', required: 'a' },
      { type: 'object', properties: { a: null, b: 7, c: [], d: true, e: false } },
      { type: 'array', items: null },
      { enum: 'x' },
      { enum: [] },
      { anyOf: [] },
      { allOf: 'x' },
      { $ref: 42 },
      { $ref: '#/%zz/~2' },
      { const: undefined },
      { const: { deep: 'x'.repeat(100) } },
      { default: 10n },
      cyclic,
      hostile,
    ];
    for (const schema of odd) {
      const text = declarationOf(toolOf(schema as JsonSchema, { description: 'odd */ one' }));
      expect(syntaxErrorsOf(text), JSON.stringify(String(schema))).toEqual([]);
    }
    expect(argsOf({})).toBe('unknown');
    expect(propertyTypeOf({ type: 'frobnicate' })).toBe('unknown');
    expect(propertyTypeOf({ enum: [] })).toBe('never');
  });
});
