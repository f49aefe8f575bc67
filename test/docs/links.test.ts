import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/mcp-client.js';
import { anchorsOf, linksOf, markdownFilesUnder } from '../support/markdown.js';

const pages = markdownFilesUnder(ROOT);

/** What is wrong with a relative link from `page`, or undefined when it lands on a file and heading that exist. */
function brokenLink(page: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#');
  const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), decodeURIComponent(path));
  if (!existsSync(file)) return `${target}: no such file`;
  if (anchor === undefined) return undefined;
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return `${target}: an anchor into a file that has no headings`;
  return anchorsOf(readFileSync(file, 'utf8')).has(anchor) ? undefined : `${target}: no heading makes #${anchor}`;
}

describe('the links in the Markdown files', () => {
  it('finds the README and the docs', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', join('docs', 'config.md')]));
  });

  it.each(pages)('%s links only to files and headings that exist', (page) => {
    const broken = linksOf(readFileSync(join(ROOT, page), 'utf8'))
      .filter((link) => !/^[a-z][a-z+.-]*:/i.test(link.target))
      .flatMap((link) => {
        const problem = brokenLink(page, link.target);
        return problem === undefined ? [] : [`${page}:${link.line}: ${problem}`];
      });
    expect(broken).toEqual([]);
  });
});
