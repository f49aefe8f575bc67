import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/mcp-client.js';
import { anchorsOf, filesUnder, linksOf, markdownFilesUnder, slugOf } from '../support/markdown.js';

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

// Comments once cited headings that no longer existed (issue 44): `docs/architecture.md, "The
// target layout"`, a section of bench/ANALYSIS.md that was in RESULTS.md.
const CODE_ROOTS = ['src', 'engine', 'prelude', 'protocol', 'common', 'build', 'bench', 'bin'];
const code = [
  ...CODE_ROOTS.flatMap((root) => filesUnder(ROOT, ['.ts', '.js', '.mjs', '.cjs'], join(ROOT, root))),
  'eslint.config.js',
  'vitest.config.ts',
];
/** A doc a comment names, from the repository's root: `docs/deploy.md`, `bench/ANALYSIS.md`, the README. */
const DOC = String.raw`(?:docs|bench)/[\w.-]+\.md|README(?:\.md)?`;
/** `docs/observability.md#logs`. */
const ANCHORED = new RegExp(String.raw`\b(${DOC})#([\w-]+)`, 'g');
/** `docs/deploy.md, "Sessions over HTTP"`, `(README, "Add it to a client")`, `README's "Limitations"`. */
const QUOTED = new RegExp(String.raw`\b(${DOC})(?:'s)?,? ["“]([^"”\n]{2,80})["”]`, 'g');
/** Any doc path at all. */
const NAMED = /\b((?:docs|bench)\/[\w.-]+\.md)\b/g;

/** The file's text with comment markers at line starts removed, so a citation broken over lines reads as one. */
function joinedComments(text: string): string {
  return text.replace(/\n\s*(?:\*(?!\/)|\/\/)\s*/g, ' ');
}

/**
 * What is wrong with a citation of `doc` (and of the heading whose anchor is `anchor`; by its
 * leading words when `leading`, as `"Child reuse"` names `## Child reuse (issue 30)`), or undefined.
 */
function brokenCitation(doc: string, anchor: string | undefined, leading: boolean): string | undefined {
  const file = join(ROOT, doc === 'README' ? 'README.md' : doc);
  if (!existsSync(file)) return `${doc}: no such file`;
  if (anchor === undefined) return undefined;
  const anchors = [...anchorsOf(readFileSync(file, 'utf8'))];
  const found = anchors.some((candidate) => candidate === anchor || (leading && candidate.startsWith(`${anchor}-`)));
  return found ? undefined : `${doc}: no heading ${leading ? 'starts with' : 'makes'} #${anchor}`;
}

/** Every doc and heading the file's text cites, each with what is wrong with it. */
function brokenCitationsIn(text: string): string[] {
  const joined = joinedComments(text);
  const cited = [
    ...[...joined.matchAll(ANCHORED)].map((match) => [match[1]!, match[2]!, false, `${match[1]}#${match[2]}`] as const),
    ...[...joined.matchAll(QUOTED)].map((match) => [match[1]!, slugOf(match[2]!), true, `${match[1]}, "${match[2]}"`] as const),
    ...[...joined.matchAll(NAMED)].map((match) => [match[1]!, undefined, false, match[1]!] as const),
  ];
  return cited.flatMap(([doc, anchor, leading, as]) => {
    const problem = brokenCitation(doc, anchor, leading);
    return problem === undefined ? [] : [`${as}: ${problem}`];
  });
}

describe('the docs and headings the code cites', () => {
  it('finds code that cites a heading in each form', () => {
    const texts = code.map((file) => joinedComments(readFileSync(join(ROOT, file), 'utf8'))).join('\n');
    expect(texts).toMatch(ANCHORED);
    expect(texts).toMatch(QUOTED);
  });

  it('reads a citation in each form, and one broken over comment lines', () => {
    expect(brokenCitationsIn('// see docs/observability.md#logs')).toEqual([]);
    expect(brokenCitationsIn('/* (docs/deploy.md,\n * "Sessions over HTTP") */')).toEqual([]);
    expect(brokenCitationsIn(`'(README, "Add it to a client")'`)).toEqual([]);
    expect(brokenCitationsIn('// bench/ANALYSIS.md, "Child reuse"')).toEqual([]);
    expect(brokenCitationsIn('// bench/ANALYSIS.md#child-reuse')).toEqual([
      'bench/ANALYSIS.md#child-reuse: bench/ANALYSIS.md: no heading makes #child-reuse',
    ]);
    expect(brokenCitationsIn('// docs/deploy.md#no-such-heading')).toEqual([
      'docs/deploy.md#no-such-heading: docs/deploy.md: no heading makes #no-such-heading',
    ]);
    expect(brokenCitationsIn('// bench/ANALYSIS.md, "No such section"')).toEqual([
      'bench/ANALYSIS.md, "No such section": bench/ANALYSIS.md: no heading starts with #no-such-section',
    ]);
    expect(brokenCitationsIn('// docs/nowhere.md')).toEqual(['docs/nowhere.md: docs/nowhere.md: no such file']);
  });

  it.each(code)('%s cites only docs and headings that exist', (file) => {
    expect(brokenCitationsIn(readFileSync(join(ROOT, file), 'utf8'))).toEqual([]);
  });
});

/** The page's current text: architecture.md's History, like the CHANGELOG, tells what was. */
function currentText(page: string): string {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const history = text.indexOf('\n## History\n');
  return history === -1 ? text : text.slice(0, history);
}

// docs/server.md named src/http/modern-lane.ts and src/scripts/answer.ts after both had moved.
describe('the source files the docs name', () => {
  const docs = pages.filter((page) => page !== 'CHANGELOG.md' && (page === 'README.md' || page.startsWith('docs/')));

  it.each(docs)('%s names, in code, only paths of the repository that exist', (page) => {
    const named = [
      ...currentText(page).matchAll(/`((?:src|engine|prelude|protocol|common|test|bench|build|bin|examples|mcpb)\/[\w./-]+)`/g),
    ]
      .map((match) => match[1]!)
      .filter((path) => !path.includes('node_modules'));
    expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });
});
