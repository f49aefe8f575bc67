/**
 * Reading Markdown as GitHub renders it, for the tests that hold the docs to the tree: the
 * relative links a page makes and the anchors its headings get.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface MarkdownLink {
  readonly line: number;
  readonly target: string;
}

/** The page's text outside fenced code blocks and inline code (which may span lines), lines kept in place. */
function proseOf(markdown: string): string[] {
  let fenced = false;
  const unfenced = markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
  return unfenced
    .join('\n')
    .replace(/(`+)(?:(?!\n\s*\n)[\s\S])*?\1/g, (code) => code.replace(/[^\n]/g, ''))
    .split('\n');
}

/** Words as `wc -w` counts them: every run of non-space characters, code blocks included. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}

/** Every link target the page makes, `[text](target)` and `![alt](target)`, with its line. */
export function linksOf(markdown: string): MarkdownLink[] {
  return proseOf(markdown).flatMap((line, index) =>
    [...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => ({ line: index + 1, target: match[1]! })),
  );
}

/** A heading's text as GitHub makes its anchor: lower case, links to their text, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const slug = slugOf(heading[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The files under `dir` whose names end with one of `endings`, relative to `root`, leaving out what is installed or built. */
export function filesUnder(root: string, endings: readonly string[], dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist') return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(root, endings, path);
    return endings.some((ending) => entry.name.endsWith(ending)) ? [relative(root, path)] : [];
  });
}

/** The repository's Markdown files, relative to `root`, leaving out what is installed or built. */
export function markdownFilesUnder(root: string): string[] {
  return filesUnder(root, ['.md']);
}
