import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { wordCount } from '../support/markdown.js';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');

/** README words a user reads in about ten minutes (issue 44): internals and reference go to docs/. */
const README_MAX_WORDS = 2000;

/** An example script as the docs show it: the file without its `// ` header lines. */
function shownExample(name: string): string {
  return read(`examples/scripts/${name}`)
    .split('\n')
    .filter((line) => !line.startsWith('// '))
    .join('\n')
    .trim();
}

describe('the README', () => {
  it(`is at most ${README_MAX_WORDS} words, its code blocks included, as wc -w counts them`, () => {
    expect(wordCount(readme)).toBeLessThanOrEqual(README_MAX_WORDS);
  });

  it('counts every word, in code blocks too', () => {
    expect(wordCount('one `two` three\n\n```js\ncounted here\n```\nfour\n')).toBe(8);
  });

  // A new user's first block was `npx -y codemode-mcp`, which fails until the package is published (issue 45).
  it('installs from a clone before it shows any npx form, and marks the npx form as for after publication', () => {
    const clone = readme.indexOf('git clone');
    const npx = readme.indexOf('npx -y codemode-mcp');
    expect(clone).toBeGreaterThan(-1);
    expect(npx).toBeGreaterThan(clone);
    expect(readme.slice(npx - 200, npx)).toMatch(/published/);
    expect(readme).toContain('npm ci');
    expect(readme).toMatch(/\/bin\/codemode-mcp\.js/);
  });

  it('shows examples/scripts/parallel-sums.js as it is, so its first example runs in the suite', () => {
    expect(readme).toContain(`\`\`\`js\n${shownExample('parallel-sums.js')}\n\`\`\``);
  });

  it('gives a VS Code .vscode/mcp.json entry that passes ${workspaceFolder} on in an environment variable', () => {
    const block = /```json\n(\{\n {2}"servers"[\s\S]*?)```/.exec(readme)?.[1];
    const entry = (JSON.parse(block!) as { servers: Record<string, { args: string[]; env: Record<string, string> }> }).servers[
      'codemode'
    ]!;
    expect(entry.args).toContain('${workspaceFolder}/.vscode/servers.json');
    expect(entry.env).toEqual({ WORKSPACE: '${workspaceFolder}' });
  });

  it('gives the Inspector recipe with the Node 22 the Inspector needs', () => {
    expect(readme).toContain('npx -y -p node@22 -p @modelcontextprotocol/inspector@2.12.0 mcp-inspector --cli --config mcp.json');
  });
});

describe('docs/scripts.md', () => {
  it('shows examples/scripts/notes-to-memory.js as it is, so the worked example runs in the suite', () => {
    expect(read('docs/scripts.md')).toContain(`\`\`\`js\n${shownExample('notes-to-memory.js')}\n\`\`\``);
  });
});
