import { describe, expect, test } from 'vitest';
import { SUMMARY_MAX_CHARS, summarize } from '../../common/summary.js';
import {
  DESCRIPTION_MAX_CHARS,
  SKILLS_MAX_CHARS,
  SUMMARY_MIN_CHARS,
  UPSTREAM_NOTE_MAX_CHARS,
  UPSTREAM_NOTES_MAX_CHARS,
  describeCodeExecution as describeWith,
} from '../../src/catalog/description.js';
import type { Catalog, CatalogTool } from '../../src/catalog/types.js';

const LONG_DESCRIPTION =
  'Creates or updates a record in the remote store, validating it against the schema first and retrying on conflicts. '.repeat(
    20,
  );

/** The description of a catalog, or of these tools alone (no notes, no resources). */
function describeCodeExecution(catalog: Catalog | readonly CatalogTool[], yieldMs = 30_000): string {
  return describeWith(isCatalog(catalog) ? catalog : { tools: catalog, upstreamNotes: [], resourcesOffered: false }, { yieldMs });
}

function isCatalog(catalog: Catalog | readonly CatalogTool[]): catalog is Catalog {
  return 'tools' in catalog;
}

/** `count` tools of server `server`, named `<server>__tool_<i>_x` as with several upstreams. */
function toolsOf(count: number, server = 's', nameOf: (i: number) => string = (i) => `tool_${i}_x`): CatalogTool[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${server}__${nameOf(i)}`,
    server,
    upstreamName: nameOf(i),
    description: `Tool number ${i}. ${LONG_DESCRIPTION}`,
    inputSchema: { type: 'object', properties: {} },
    allowed: true,
  }));
}

/** The catalog as the hub hands it over when some upstream offers resources. */
function withResources(tools: CatalogTool[]): Catalog {
  return { tools, upstreamNotes: [], resourcesOffered: true };
}

/** The tool section: everything after the API text. */
function toolSection(description: string): string {
  return description.slice(description.indexOf('\nTools'));
}

describe('describeCodeExecution', () => {
  test('states the API exactly: shapes, what throws, what each helper returns, the defaults', () => {
    const text = describeCodeExecution([], 45_000);
    for (const part of [
      'JavaScript or TypeScript',
      'async function body',
      'top-level await',
      '`return x`',
      'each script starts fresh',
      'yield_ms (default 45 s)',
      '"running"',
      '{action:"wait"|"stop",script:id}',
      '{action:"list"}',
      'tools["name"](args)',
      '{type:"text",text}',
      '{type:"image"|"audio",data,mimeType}',
      '{type:"resource",resource:{uri,text|blob}}',
      'structuredContent? (tools with an output schema)',
      'isError:true: the tool failed',
      'Thrown: ToolRefused (not sent; retry), TimeoutError (may still take effect), ResultTooLarge (took effect)',
      'Promise.all',
      'searchTools(query, limit=10) → [{name,description,score}]',
      "console.log(describe(name)) prints one tool's declaration",
      '(large: use describe; never return it)',
      'ALL_TOOLS: [{name,description,inputSchema,outputSchema}]',
      'console.log/text() print',
      'show(block|result)',
      'notify(x)',
      'sleep(ms)',
    ]) {
      expect(text, part).toContain(part);
    }
    expect(text).toContain('No tools are available right now.');
  });

  test.each([0, 3, 50, 2_000])('stays within 2,048 characters with %i tools with long descriptions', (count) => {
    const text = describeCodeExecution(toolsOf(count));
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
    expect(describeCodeExecution(withResources(toolsOf(count))).length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
  });

  test('names skills, and the saved ones with a line each, only when the server serves skills to scripts', () => {
    const catalog: Catalog = { tools: toolsOf(3), upstreamNotes: [], resourcesOffered: false };
    const without = describeWith(catalog, { yieldMs: 30_000 });
    expect(without).not.toContain('skills');
    const none = describeWith(catalog, { yieldMs: 30_000 }, []);
    expect(none).toContain(
      'skills.save({name,description,code,inputSchema?}) keeps a script body (input in scope); skills["name"](input) runs it here',
    );
    expect(none).not.toContain('Saved skills');
    const two = describeWith(catalog, { yieldMs: 30_000 }, [
      { name: 'word-count', description: 'Counts the words of a text. Splits on whitespace.' },
      { name: 'triage', description: LONG_DESCRIPTION },
    ]);
    expect(two).toContain(
      '\nSaved skills (2):\n- word-count: Counts the words of a text\n- triage: Creates or updates a record in the remote store, validating it against the…',
    );
    expect(two.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
  });

  test('names saved skills without descriptions past their budget, then counts the rest, and stays within 2,048', () => {
    const catalog: Catalog = { tools: toolsOf(50), upstreamNotes: [], resourcesOffered: false };
    const skills = Array.from({ length: 60 }, (_, i) => ({ name: `skill-number-${i}`, description: LONG_DESCRIPTION }));
    const text = describeWith(catalog, { yieldMs: 30_000 }, skills);
    const part = text.slice(text.indexOf('\nSaved skills (60):'), text.indexOf('\n', text.indexOf('\nSaved skills (60):') + 1));
    expect(part).toMatch(/^\nSaved skills \(60\): skill-number-0, skill-number-1, .*, \+\d+ more: skills\.list\(\)$/);
    expect(part.length).toBeLessThanOrEqual(SKILLS_MAX_CHARS);
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
  });

  test('names resources, and what each call returns, only when some upstream offers resources', () => {
    const without = describeCodeExecution(toolsOf(3));
    expect(without).not.toContain('resources.');
    const text = describeCodeExecution(withResources(toolsOf(3)));
    for (const part of [
      'resources.list()|templates() → [{uri|uriTemplate,name}]',
      'resources.read(uri) → {contents:[{uri,text|blob}]}',
      'errors as for tools',
    ]) {
      expect(text, part).toContain(part);
    }
    // The same tools are listed either way: the line comes out of the tools' room only when they need it.
    expect(toolSection(text)).toBe(toolSection(without));
  });

  test('names every tool with a one-line summary while room lasts, under its server with its count', () => {
    const text = describeCodeExecution(toolsOf(3));
    expect(toolSection(text)).toBe(
      '\nTools; call one as tools["name"]:\ns (3 tools: number)\ns__tool_0_x: Tool number 0\ns__tool_1_x: Tool number 1\ns__tool_2_x: Tool number 2',
    );
  });

  test('with several servers, lists tools by their own names under each server, and says how to call them', () => {
    const text = describeCodeExecution([...toolsOf(2, 'a'), ...toolsOf(1, 'b')]);
    expect(toolSection(text)).toBe(
      '\nTools of 2 servers; call one as tools["<server>__<tool>"]:\na (2 tools: number)\ntool_0_x: Tool number 0\ntool_1_x: Tool number 1\nb (1 tool: number)\ntool_0_x: Tool number 0',
    );
  });

  test('cuts every summary shorter before any tool loses its summary', () => {
    const tools = toolsOf(15).map((t) => ({
      ...t,
      description: `${'Does a fairly specific thing with records '.repeat(2)}${t.name}`,
    }));
    const text = describeCodeExecution(tools);
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
    const lines = toolSection(text).split('\n').slice(3);
    expect(lines).toHaveLength(15);
    for (const [i, line] of lines.entries()) {
      const prefix = `s__tool_${i}_x: Does a fairly specific thing`;
      expect(line.startsWith(prefix), line).toBe(true);
      expect(line.length - `s__tool_${i}_x: `.length).toBeGreaterThanOrEqual(SUMMARY_MIN_CHARS - 10);
      expect(line.endsWith('…')).toBe(true);
    }
  });

  test("gives summaries to each server's first tools and names the rest when summaries run out", () => {
    const tools = toolsOf(50).map((t) => ({
      ...t,
      description: `${'Quite a long summary sentence, '.repeat(2)}number ${t.name}. More.`,
    }));
    const text = describeCodeExecution(tools);
    const section = toolSection(text);
    expect(section).toContain('s__tool_0_x: Quite a long summary sentence');
    expect(section).toMatch(/\nalso: s__tool_\d+_x, /);
    for (const tool of tools) expect(section).toMatch(new RegExp(`(^|\\n|, |also: )${tool.name}(:|,|\\n|$)`));
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
  });

  test('names every tool whenever all the names fit, for any count, and otherwise counts the rest per server', () => {
    for (let count = 0; count <= 150; count += 1) {
      const tools = toolsOf(count);
      const text = describeCodeExecution(tools);
      expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
      const counted = /, \+(\d+) more\nsearchTools\(query\) finds the tools not named here\.$/.exec(text);
      const named = tools.filter((t) => new RegExp(`(\\n|, |also: )${t.name}(:|,|\\n|$)`).test(text)).length;
      expect(named + Number(counted?.[1] ?? 0), `${count} tools`).toBe(count);
      if (count > 0 && counted === null) expect(named, `${count} tools`).toBe(count);
    }
  });

  test('names every server of a 200-tool catalog, with its count and topics, and some of its tools', () => {
    const big = toolsOf(200, 'billing', (i) => `invoice_op_${i}`).map((t) => ({
      ...t,
      description: `Manage invoices, step ${t.upstreamName}.`,
    }));
    const tools = [...toolsOf(14, 'files'), ...toolsOf(9, 'memory'), ...toolsOf(17, 'everything'), ...big];
    const text = describeCodeExecution(tools);
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
    for (const server of ['files', 'memory', 'everything'])
      expect(text).toMatch(new RegExp(`\\n${server} \\(\\d+ tools: number\\)\\n`));
    expect(text).toMatch(/\nbilling \(200 tools: invoice, manage, step\)\ninvoice_op_0, invoice_op_1, .*, \+\d+ more\n/);
    expect(text.endsWith('\nsearchTools(query) finds the tools not named here.')).toBe(true);
  });

  test('names every one of 2,000 servers it can by name and count, then counts the rest', () => {
    const tools = Array.from({ length: 2_000 }, (_, i) => toolsOf(1, `server${i}`)[0]!);
    const text = describeCodeExecution(tools);
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
    const match = /\nand (\d+) more servers: searchTools\(query\) finds their tools$/.exec(text);
    expect(match).not.toBeNull();
    const named = (text.match(/\nserver\d+ \(1 tool\)/g) ?? []).length;
    expect(named).toBeGreaterThan(20);
    expect(named + Number(match?.[1])).toBe(2_000);
  });

  test('does not name a tool the config denies', () => {
    const tools = toolsOf(3).map((t, i) => ({ ...t, allowed: i !== 1 }));
    const text = describeCodeExecution(tools);
    expect(text).toContain('s (2 tools');
    expect(text).not.toContain('s__tool_1_x');
    expect(describeCodeExecution(tools.map((t) => ({ ...t, allowed: false })))).toContain('No tools are available right now.');
  });
});

describe('summarize', () => {
  test('takes the first sentence of the first line, on one line', () => {
    expect(summarize('Adds two numbers. Returns the sum.')).toBe('Adds two numbers');
    expect(summarize('Reads a file\nfrom the disk.')).toBe('Reads a file');
    expect(summarize('\n\n  # Search   the web!  Then more')).toBe('Search the web');
    expect(summarize('Uses v1.2 of the API')).toBe('Uses v1.2 of the API');
    expect(summarize('')).toBe('');
    expect(summarize(undefined)).toBe('');
  });

  test('shows a deprecation first, wherever the description says it', () => {
    expect(summarize('Read a file as text. DEPRECATED: Use read_text_file instead.')).toBe(
      'DEPRECATED: Use read_text_file instead (Read a file as text)',
    );
    expect(summarize('Deprecated: use v2.\nLists things.')).toBe('DEPRECATED: use v2');
    expect(summarize('Lists things.\n\nThis tool is deprecated and will go.')).toBe('DEPRECATED and will go (Lists things)');
  });

  test(`cuts a long first sentence at a word within ${SUMMARY_MAX_CHARS} characters`, () => {
    const summary = summarize('word '.repeat(40));
    expect(summary.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    expect(summary.endsWith('word…')).toBe(true);
  });
});

describe('upstream notes in the description', () => {
  const withNotes = (tools: CatalogTool[], upstreamNotes: string[]): Catalog => ({
    tools,
    upstreamNotes,
    resourcesOffered: false,
  });

  test('each upstream not serving its tools gets a line after the API, before the tools', () => {
    const text = describeCodeExecution(
      withNotes(toolsOf(2), ['github is down: it exited during startup', 'files is still starting']),
    );
    expect(text).toContain(
      '\nUpstream servers not serving their tools now:\n- github is down: it exited during startup\n- files is still starting\nTools; call one',
    );
  });

  test("a long note keeps its start and its end, so the reason and the stderr's last words both show", () => {
    const note = `proxied is down: it exited during startup; its stderr last said: "npm error code SELF_SIGNED_CERT_IN_CHAIN" / ${'"npm notice filler" / '.repeat(20)}"npm error A complete log is in debug-0.log"`;
    const line = describeCodeExecution(withNotes([], [note]))
      .split('\n')
      .find((candidate) => candidate.startsWith('- proxied'))!;
    expect(line.length).toBe(2 + UPSTREAM_NOTE_MAX_CHARS);
    expect(line).toContain('"npm error code SELF_SIGNED_CERT_IN_CHAIN"');
    expect(line).toMatch(/….*debug-0\.log"$/);
  });

  test('many long notes stay within their share, the rest counted, and the description within its cap', () => {
    const notes = Array.from({ length: 10 }, (_, i) => `upstream${i} is down: ${'a reason '.repeat(100)}`);
    for (const tools of [[], toolsOf(300)]) {
      const text = describeCodeExecution(withNotes(tools, notes));
      const section = text.slice(
        text.indexOf('\nUpstream servers'),
        text.includes('\nTools') ? text.indexOf('\nTools') : text.indexOf('\nNo tools'),
      );
      expect(section.length).toBeLessThanOrEqual(UPSTREAM_NOTES_MAX_CHARS);
      expect(section).toMatch(/\n- and \d+ more \(see the server's log\)$/);
      expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
    }
  });

  test('marks the tools that ask a person, and says once what that means for a script', () => {
    const tools = toolsOf(3).map((tool, i) => (i === 1 ? { ...tool, approval: 'ask' as const } : tool));
    const description = describeCodeExecution(tools);
    expect(description).toContain('tool_1_x [asks]');
    expect(description).toContain('[asks]: a person approves its calls first;');
    expect(describeCodeExecution(toolsOf(3))).not.toContain('[asks]');
  });
});
