import { describe, expect, test } from 'vitest';
import { buildCatalog, type UpstreamListing } from '../../src/upstream/tools/build-catalog.js';
import type { ListedTool } from '../../src/upstream/tools/tool-admission.js';
import { describeCollision } from '../../src/upstream/tools/tool-names.js';

const tool = (name: string, extra: Partial<ListedTool> = {}): ListedTool => ({
  name,
  description: `tool ${name}`,
  inputSchema: { type: 'object' },
  ...extra,
});

const upstream = (
  name: string,
  tools: readonly ListedTool[] | undefined,
  extra: Partial<UpstreamListing> = {},
): UpstreamListing => ({
  name,
  policy: {},
  tools,
  note: undefined,
  ...extra,
});

describe('buildCatalog', () => {
  test('no upstreams: no tools, no notes, no collisions', () => {
    expect(buildCatalog({ upstreams: [], resourcesOffered: false })).toEqual({
      catalog: { tools: [], upstreamNotes: [], resourcesOffered: false },
      collisions: [],
    });
  });

  test("one upstream's tools keep their own names; several upstreams' are <server>__<tool>", () => {
    const solo = buildCatalog({ upstreams: [upstream('a', [tool('x')])], resourcesOffered: false });
    expect(solo.catalog.tools.map((t) => [t.name, t.server, t.upstreamName])).toEqual([['x', 'a', 'x']]);
    const two = buildCatalog({ upstreams: [upstream('a', [tool('x')]), upstream('b', [tool('x')])], resourcesOffered: false });
    expect(two.catalog.tools.map((t) => [t.name, t.server, t.upstreamName])).toEqual([
      ['a__x', 'a', 'x'],
      ['b__x', 'b', 'x'],
    ]);
  });

  test("a tool carries its upstream's fields as listed, the description defaulting to empty", () => {
    const definition = tool('t', {
      description: undefined,
      outputSchema: { type: 'object' },
      title: 'T',
      annotations: { readOnlyHint: true },
      note: 'a placeholder stands in',
    });
    delete (definition as { description?: string }).description;
    const { catalog } = buildCatalog({ upstreams: [upstream('a', [definition])], resourcesOffered: false });
    expect(catalog.tools).toEqual([
      {
        name: 't',
        server: 'a',
        upstreamName: 't',
        description: '',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
        title: 'T',
        annotations: { readOnlyHint: true },
        note: 'a placeholder stands in',
        allowed: true,
        approval: 'allow',
        approvalWhy: 'readOnlyHint',
      },
    ]);
  });

  test("a tool the config's policy denies stays in the catalog, not allowed", () => {
    const { catalog } = buildCatalog({
      upstreams: [upstream('rec', [tool('echo'), tool('secret'), tool('search')], { policy: { deny: ['sec*'] } })],
      resourcesOffered: false,
    });
    expect(catalog.tools.map((t) => [t.name, t.allowed])).toEqual([
      ['echo', true],
      ['secret', false],
      ['search', true],
    ]);
    const allowOnly = buildCatalog({
      upstreams: [upstream('rec', [tool('echo'), tool('secret')], { policy: { allow: ['echo'] } })],
      resourcesOffered: false,
    });
    expect(allowOnly.catalog.tools.map((t) => [t.name, t.allowed])).toEqual([
      ['echo', true],
      ['secret', false],
    ]);
  });

  test('two tools under one name: the earlier in config order keeps it, the other is a collision and left out', () => {
    const { catalog, collisions } = buildCatalog({
      upstreams: [upstream('a', [tool('x__y'), tool('other')]), upstream('a__x', [tool('y')])],
      resourcesOffered: false,
    });
    expect(catalog.tools.map((t) => [t.name, t.server])).toEqual([
      ['a__x__y', 'a'],
      ['a__other', 'a'],
    ]);
    expect(collisions.map(describeCollision)).toEqual([
      '"a__x__y" is both tool "x__y" of upstream "a" and tool "y" of upstream "a__x"',
    ]);
  });

  test('after start, a name scripts already use keeps its tool, and the newcomer that collides is left out', () => {
    const before = buildCatalog({
      upstreams: [upstream('a', [tool('z')]), upstream('a__x', [tool('y')])],
      resourcesOffered: false,
    });
    const after = buildCatalog({
      upstreams: [upstream('a', [tool('z'), tool('x__y')]), upstream('a__x', [tool('y')])],
      established: before.catalog,
      resourcesOffered: false,
    });
    expect(after.catalog.tools.filter((t) => t.name === 'a__x__y')).toEqual([
      expect.objectContaining({ server: 'a__x', upstreamName: 'y' }),
    ]);
    expect(after.collisions.map(describeCollision)).toEqual([
      '"a__x__y" is both tool "y" of upstream "a__x" and tool "x__y" of upstream "a"',
    ]);
    // During start (nothing established) config order decides instead.
    const atStart = buildCatalog({
      upstreams: [upstream('a', [tool('z'), tool('x__y')]), upstream('a__x', [tool('y')])],
      resourcesOffered: false,
    });
    expect(atStart.catalog.tools.find((t) => t.name === 'a__x__y')).toMatchObject({ server: 'a' });
  });

  test('an upstream that lists a tool twice is a collision too', () => {
    const { catalog, collisions } = buildCatalog({
      upstreams: [upstream('solo', [tool('dup'), tool('dup')])],
      resourcesOffered: false,
    });
    expect(catalog.tools).toHaveLength(1);
    expect(collisions.map(describeCollision)).toEqual(['upstream "solo" lists tool "dup" twice']);
  });

  test('an upstream not serving its tools adds its note; one that never listed adds no tools; resources offered is passed on', () => {
    const { catalog } = buildCatalog({
      upstreams: [
        upstream('up', [tool('a')]),
        upstream('starting', undefined, { note: 'starting is still starting' }),
        upstream('down', [tool('b')], { note: 'down is down: it exited' }),
      ],
      resourcesOffered: true,
    });
    expect(catalog.tools.map((t) => t.name)).toEqual(['up__a', 'down__b']);
    expect(catalog.upstreamNotes).toEqual(['starting is still starting', 'down is down: it exited']);
    expect(catalog.resourcesOffered).toBe(true);
  });

  test('many upstreams of many tools: every tool named, in config order then list order', () => {
    const upstreams = Array.from({ length: 256 }, (_, i) =>
      upstream(
        `s${i}`,
        Array.from({ length: 20 }, (_, j) => tool(`t${j}`)),
      ),
    );
    const { catalog, collisions } = buildCatalog({ upstreams, resourcesOffered: false });
    expect(collisions).toEqual([]);
    expect(catalog.tools).toHaveLength(256 * 20);
    expect(catalog.tools[0]!.name).toBe('s0__t0');
    expect(catalog.tools[21]!.name).toBe('s1__t1');
    expect(catalog.tools.at(-1)!.name).toBe('s255__t19');
  });

  test('the catalog is plain data: it serialises and copies whole', () => {
    const { catalog } = buildCatalog({
      upstreams: [upstream('a', [tool('x')], { note: 'a note' })],
      resourcesOffered: true,
    });
    expect(JSON.parse(JSON.stringify(catalog))).toEqual(catalog);
    expect({ ...catalog }).toEqual(catalog);
  });
});

describe('approvals in the catalog', () => {
  test('a destructive tool asks, the config allows or denies over it, and a denied one is not callable', () => {
    const destructive = { ...tool('delete_item'), annotations: { destructiveHint: true } };
    const { catalog } = buildCatalog({
      upstreams: [upstream('rec', [destructive, tool('note'), { ...tool('wipe'), annotations: { destructiveHint: true } }], {})],
      resourcesOffered: false,
      approvals: { deny: ['wipe'] },
    });
    expect(catalog.tools.map((t) => [t.name, t.approval, t.allowed])).toEqual([
      ['delete_item', 'ask', true],
      ['note', 'allow', true],
      ['wipe', 'deny', false],
    ]);
  });

  // Regression (issue 45): the entry's deny did not make a destructive tool's approval `deny`, so
  // a script's call of it was put to a person before the upstream routing refused it.
  test("a tool the entry's deny names or its allow leaves out is denied, destructive or not, whatever the approvals globs say", () => {
    const destructive = (name: string) => ({ ...tool(name), annotations: { destructiveHint: true } });
    const { catalog } = buildCatalog({
      upstreams: [
        upstream('rec', [destructive('delete_item'), destructive('drop'), destructive('keep')], {
          policy: { allow: ['delete_*', 'keep'], deny: ['delete_*'] },
          approvals: { ask: ['*'], allow: ['drop'] },
        }),
      ],
      resourcesOffered: false,
      approvals: { allow: ['*'] },
    });
    expect(catalog.tools.map((t) => [t.name, t.approval, t.allowed, t.approvalWhy])).toEqual([
      ['delete_item', 'deny', false, `the server entry's deny "delete_*"`],
      ['drop', 'deny', false, "not in the server entry's allow"],
      ['keep', 'ask', true, `the server entry's approvals.ask "*"`],
    ]);
  });
});
