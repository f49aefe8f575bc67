import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse-config.js';

const DOC = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');
const JSON_BLOCKS = [...DOC.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');

describe('docs/config.md', () => {
  it('has its examples', () => {
    expect(JSON_BLOCKS.length).toBeGreaterThanOrEqual(4);
  });

  it('shows only configs that load, a lone entry being read as the one server of a file', () => {
    const env = { GITHUB_TOKEN: 'g', API_KEY: 'k', WIKI_CLIENT_SECRET: 'w' };
    for (const block of JSON_BLOCKS) {
      const text = block.trimStart().startsWith('"') ? `{"mcpServers": {${block}}}` : block;
      expect(() => parseConfig(JSON.parse(text), { path: 'docs/config.md', env }), block).not.toThrow();
    }
  });
});
