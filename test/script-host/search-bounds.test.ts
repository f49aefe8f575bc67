import { describe, expect, test } from 'vitest';
import { SEARCH_QUERY_MAX_CHARS } from '../../common/search-tools.js';
import { runScript, toolEntries } from '../support/scripts.js';

// Regression: a 1 MB query over 3,000 tools ran 78 s in the script's child. Past its bounds a
// query is refused with a RangeError the script can catch, before any tool is scored.
describe('searchTools in a script', () => {
  test('a query past its bounds throws a RangeError naming the bound, and a short one still searches', async () => {
    const tools = toolEntries(...Array.from({ length: 3_000 }, (_, i) => `tool_${i}`));
    const ret = await runScript(
      `
      const refused = [];
      for (const query of ["a".repeat(1_000_000), "x".repeat(${SEARCH_QUERY_MAX_CHARS + 1}), Array.from({ length: 40 }, (_, i) => "w" + i).join(" ")]) {
        try { searchTools(query); refused.push("searched") } catch (e) { refused.push(e.name + ": " + e.message) }
      }
      return { refused, hit: searchTools("tool 7", 1)[0].name };
      `,
      { tools },
    );
    expect(ret.status).toBe('finished');
    expect(JSON.parse(ret.value!)).toEqual({
      refused: [
        'RangeError: searchTools: the query is 1000000 characters, past 1000; search with a few words',
        'RangeError: searchTools: the query is 1001 characters, past 1000; search with a few words',
        'RangeError: searchTools: the query has 40 distinct words, past 32; search with a few words',
      ],
      hit: expect.stringMatching(/^tool_7/),
    });
  });
});
