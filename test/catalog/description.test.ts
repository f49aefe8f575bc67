import { describe, expect, test } from 'vitest';
import { SEARCH_SUMMARY_MAX_CHARS, summarize } from '../../common/search-tools.js';
import {
  DESCRIPTION_MAX_CHARS,
  SUMMARY_MAX_CHARS,
  SUMMARY_MIN_CHARS,
  UPSTREAM_NOTE_MAX_CHARS,
  UPSTREAM_NOTES_MAX_CHARS,
  describeCodeExecution,
  summaryOf,
} from '../../src/catalog/description.js';
import type { Catalog, CatalogTool } from '../../src/catalog/types.js';

const LONG_DESCRIPTION =
  'Creates or updates a record in the remote store, validating it against the schema first and retrying on conflicts. '.repeat(20);

function toolsOf(count: number, nameOf: (i: number) => string = (i) => `s__tool_${i}_x`): CatalogTool[] {
  return Array.from({ length: count }, (_, i) => ({
    name: nameOf(i),
    server: 's',
    upstreamName: `tool_${i}_x`,
    description: `Tool number ${i}. ${LONG_DESCRIPTION}`,
    inputSchema: { type: 'object', properties: {} },
    allowed: true,
  }));
}

/** The tool section: everything after the API text. */
function toolSection(description: string): string {
  return description.slice(description.indexOf('\nTools ('));
}

describe('describeCodeExecution', () => {
  test('teaches every part of the API', () => {
    const text = describeCodeExecution([]);
    for (const part of [
      '{code}',
      'top-level await',
      '`return x`',
      'yield_ms',
      '{action:"wait",script:id}',
      '{action:"stop",script:id}',
      '{action:"list"}',
      'tools["name"](args)',
      '{content, structuredContent, isError}',
      'Promise.all',
      'ALL_TOOLS',
      'describe(name)',
      'searchTools(query)',
      'console.log',
      'text()',
      'notify(payload)',
      'sleep(ms)',
      'setTimeout',
      'ToolRefused (nothing happened, safe to retry)',
      'TimeoutError',
      'ResultTooLarge',
      '"running" with its output so far and keeps going',
    ]) {
      expect(text, part).toContain(part);
    }
    expect(text).toContain('No tools are available right now.');
  });

  test.each([0, 3, 50, 2_000])('stays within 2,048 characters with %i tools with long descriptions', (count) => {
    const text = describeCodeExecution(toolsOf(count));
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
  });

  test('names every tool with a one-line summary while room lasts', () => {
    const text = describeCodeExecution(toolsOf(3));
    expect(toolSection(text)).toBe('\nTools (3):\ns__tool_0_x: Tool number 0\ns__tool_1_x: Tool number 1\ns__tool_2_x: Tool number 2');
  });

  test('cuts every summary shorter before any tool loses its summary', () => {
    const tools = toolsOf(16).map((t) => ({ ...t, description: `${'Does a fairly specific thing with records '.repeat(2)}${t.name}` }));
    const text = describeCodeExecution(tools);
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
    const lines = toolSection(text).split('\n').slice(2);
    expect(lines).toHaveLength(16);
    for (const [i, line] of lines.entries()) {
      const prefix = `s__tool_${i}_x: Does a fairly specific thing`;
      expect(line.startsWith(prefix), line).toBe(true);
      expect(line.length - `s__tool_${i}_x: `.length).toBeGreaterThanOrEqual(SUMMARY_MIN_CHARS - 10);
      expect(line.endsWith('…')).toBe(true);
    }
  });

  test('gives summaries to the first tools and names the rest when summaries run out', () => {
    const tools = toolsOf(50).map((t) => ({ ...t, description: `${'Quite a long summary sentence, '.repeat(2)}number ${t.name}. More.` }));
    const text = describeCodeExecution(tools);
    const section = toolSection(text);
    expect(section).toContain('s__tool_0_x: Quite a long summary sentence');
    expect(section).toMatch(/\nAlso: s__tool_\d+_x, /);
    for (const tool of tools) expect(section).toMatch(new RegExp(`(^|\\n|, |Also: )${tool.name}(:|,|\\n|$)`));
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
  });

  test('names every tool whenever all the names fit, for any count', () => {
    const api = describeCodeExecution([]).replace('\nNo tools are available right now.', '');
    for (let count = 0; count <= 150; count += 1) {
      const tools = toolsOf(count);
      const text = describeCodeExecution(tools);
      expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
      const namesOnly = `${api}\nTools (${count}):\n${tools.map((t) => t.name).join(', ')}`;
      const counted = / and (\d+) more \(see ALL_TOOLS \/ searchTools\)$/.exec(text);
      if (namesOnly.length <= DESCRIPTION_MAX_CHARS) {
        expect(counted, `${count} tools`).toBeNull();
        for (const tool of tools) expect(text, `${count} tools`).toContain(tool.name);
      } else {
        const named = tools.filter((t) => text.includes(`${t.name},`)).length;
        expect(named + Number(counted?.[1]), `${count} tools`).toBe(count);
      }
    }
  });

  test('names as many of 2,000 tools as fit, in order, and counts the rest', () => {
    const text = describeCodeExecution(toolsOf(2_000));
    const match = /\nTools \(2000\):\n(.*), and (\d+) more \(see ALL_TOOLS \/ searchTools\)$/.exec(text);
    expect(match).not.toBeNull();
    const shown = (match?.[1] ?? '').split(', ');
    expect(shown).toEqual(toolsOf(shown.length).map((t) => t.name));
    expect(shown.length + Number(match?.[2])).toBe(2_000);
    expect(DESCRIPTION_MAX_CHARS - text.length).toBeLessThan(20);
  });

  test('counts a tool whose name alone would not fit instead of cutting it', () => {
    const tools = [...toolsOf(2), ...toolsOf(1, () => 'n'.repeat(3_000))];
    const text = describeCodeExecution(tools);
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
    expect(text.endsWith('\ns__tool_0_x, s__tool_1_x, and 1 more (see ALL_TOOLS / searchTools)')).toBe(true);
  });

  test('does not name a tool the config denies', () => {
    const tools = toolsOf(3).map((t, i) => ({ ...t, allowed: i !== 1 }));
    const text = describeCodeExecution(tools);
    expect(text).toContain('Tools (2):');
    expect(text).not.toContain('s__tool_1_x');
    expect(describeCodeExecution(tools.map((t) => ({ ...t, allowed: false })))).toContain('No tools are available right now.');
  });
});

describe('summaryOf', () => {
  test('takes the first sentence of the first line, on one line', () => {
    expect(summaryOf({ description: 'Adds two numbers. Returns the sum.' })).toBe('Adds two numbers');
    expect(summaryOf({ description: 'Reads a file\nfrom the disk.' })).toBe('Reads a file');
    expect(summaryOf({ description: '\n\n  # Search   the web!  Then more' })).toBe('Search the web');
    expect(summaryOf({ description: 'Uses v1.2 of the API' })).toBe('Uses v1.2 of the API');
    expect(summaryOf({ description: '' })).toBe('');
  });

  test(`cuts a long first sentence at a word within ${SUMMARY_MAX_CHARS} characters`, () => {
    const summary = summaryOf({ description: 'word '.repeat(40) });
    expect(summary.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    expect(summary.endsWith('word…')).toBe(true);
  });

  test("agrees with the prelude's summarize, which searchTools uses inside scripts", () => {
    expect(SEARCH_SUMMARY_MAX_CHARS).toBe(SUMMARY_MAX_CHARS);
    for (const description of [
      'Adds two numbers. Returns the sum.',
      'Reads a file\nfrom the disk.',
      '\n\n  # Search   the web!  Then more',
      'x'.repeat(200),
      'word '.repeat(40),
      LONG_DESCRIPTION,
      '',
      '- bullet? yes',
    ]) {
      expect(summarize(description), description).toBe(summaryOf({ description }));
    }
  });
});

describe('upstream notes in the description', () => {
  const withNotes = (tools: CatalogTool[], upstreamNotes: string[]): Catalog => Object.defineProperty(tools, 'upstreamNotes', { value: upstreamNotes });

  test('each upstream not serving its tools gets a line after the API, before the tools', () => {
    const text = describeCodeExecution(withNotes(toolsOf(2), ['github is down: it exited during startup', 'files is still starting']));
    expect(text).toContain('\nUpstream servers not serving their tools now:\n- github is down: it exited during startup\n- files is still starting\nTools (2):');
  });

  test("a long note keeps its start and its end, so the reason and the stderr's last words both show", () => {
    const note = `proxied is down: it exited during startup; its stderr last said: "npm error code SELF_SIGNED_CERT_IN_CHAIN" / ${'"npm notice filler" / '.repeat(20)}"npm error A complete log is in debug-0.log"`;
    const line = describeCodeExecution(withNotes([], [note])).split('\n').find((candidate) => candidate.startsWith('- proxied'))!;
    expect(line.length).toBe(2 + UPSTREAM_NOTE_MAX_CHARS);
    expect(line).toContain('"npm error code SELF_SIGNED_CERT_IN_CHAIN"');
    expect(line).toMatch(/….*debug-0\.log"$/);
  });

  test('many long notes stay within their share, the rest counted, and the description within its cap', () => {
    const notes = Array.from({ length: 10 }, (_, i) => `upstream${i} is down: ${'a reason '.repeat(100)}`);
    for (const tools of [[], toolsOf(300)]) {
      const text = describeCodeExecution(withNotes(tools, notes));
      const section = text.slice(text.indexOf('\nUpstream servers'), text.includes('\nTools (') ? text.indexOf('\nTools (') : text.indexOf('\nNo tools'));
      expect(section.length).toBeLessThanOrEqual(UPSTREAM_NOTES_MAX_CHARS);
      expect(section).toMatch(/\n- and \d+ more \(see the server's log\)$/);
      expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
    }
  });
});
