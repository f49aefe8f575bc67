/**
 * The description tells the model which origins it may fetch (settings.fetch), each with its
 * methods and which ones a person approves, within the description's budget; with none listed it
 * says there is no network, as before.
 */
import { describe, expect, test } from 'vitest';
import { DESCRIPTION_MAX_CHARS, FETCH_ORIGINS_MAX_CHARS, describeCodeExecution } from '../../src/catalog/description.js';
import type { Catalog } from '../../src/catalog/types.js';
import { originRule } from '../support/fetch-target.js';

const catalog: Catalog = {
  tools: Array.from({ length: 300 }, (_, i) => ({
    name: `s__tool_${i}`,
    server: 's',
    upstreamName: `tool_${i}`,
    description: `Does thing number ${i} to the records of the store, carefully.`,
    inputSchema: { type: 'object' },
    allowed: true,
  })),
  upstreamNotes: [],
  resourcesOffered: false,
};

describe('the fetch line of the description', () => {
  test('names each origin with its methods, [asks] where a person approves, and says the server adds credentials', () => {
    const text = describeCodeExecution(catalog, {
      yieldMs: 30_000,
      fetch: [
        originRule('https://api.github.com', { methods: ['GET', 'POST'] }),
        originRule('https://api.example.com', { methods: ['GET'], approval: 'ask' }),
      ],
    });
    expect(text).toContain('No files, processes; network by fetch only:');
    expect(text).toContain(
      'fetch(url,{method,headers,body,redirect}) → Response {status,ok,headers.get(),text(),json(),arrayBuffer()}; the server adds ' +
        'credentials. Only to: https://api.github.com (GET, POST [asks]), https://api.example.com (GET [asks]). Others: ToolRefused FETCH_ORIGIN.',
    );
    expect(text).toContain('[asks]: a person approves its calls first');
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
  });

  test('names as many origins as fit its share, and counts the rest', () => {
    const rules = Array.from({ length: 40 }, (_, i) => originRule(`https://api-${i}.example.com`));
    const text = describeCodeExecution(catalog, { yieldMs: 30_000, fetch: rules });
    const line = text.split('\n').find((l) => l.startsWith('fetch('))!;
    const named = line.slice(line.indexOf('Only to: ') + 9, line.indexOf(' and '));
    expect(named.length).toBeLessThanOrEqual(FETCH_ORIGINS_MAX_CHARS);
    expect(line).toMatch(/ and \d+ more\. Others: ToolRefused FETCH_ORIGIN\.$/);
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
  });

  test('with no origin listed, says there is no network and has no fetch line', () => {
    const text = describeCodeExecution(catalog, { yieldMs: 30_000, fetch: [] });
    expect(text).toContain('No files, network, processes.');
    expect(text).not.toContain('fetch(');
  });
});
