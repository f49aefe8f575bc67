/**
 * The project's valid scripts, gathered for the type check's test of no false refusals: the
 * examples, the README's and docs' script blocks, the saved-skill fixtures, and the script
 * literals (`code: '...'`) of the tests and benches.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../support/mcp-client.js';

/**
 * Which catalog a script was written for: server-everything's, examples/servers.json's (files__,
 * memory__), or a fixture's the test made (`loose`: any tool name is callable, and loosely typed).
 */
export type CorpusCatalog = 'everything' | 'servers' | 'loose';

export interface CorpusScript {
  /** Where it is: a file, and the line it starts on. */
  readonly where: string;
  readonly code: string;
  readonly catalog: CorpusCatalog;
  /** A skill's code (`input` in scope), in its language. */
  readonly skill?: { readonly language: 'typescript' | 'javascript' };
}

/** Every script of the corpus. */
export function gatherCorpus(): CorpusScript[] {
  return [...exampleScripts(), ...markdownScripts(), ...literalScripts(['test', 'bench'])];
}

function exampleScripts(): CorpusScript[] {
  const dir = join(ROOT, 'examples', 'scripts');
  return readdirSync(dir).map((name) => {
    const code = readFileSync(join(dir, name), 'utf8');
    return {
      where: `examples/scripts/${name}`,
      code,
      catalog: code.includes('examples/servers.json') ? 'servers' : 'everything',
    };
  });
}

/** The ```js and ```ts blocks of the README and docs/ that are scripts (they call a guest API). */
function markdownScripts(): CorpusScript[] {
  const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => join('docs', name))].filter((p) =>
    p.endsWith('.md'),
  );
  const found: CorpusScript[] = [];
  for (const page of pages) {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const fence = /^```(js|ts|javascript|typescript)\n([\s\S]*?)^```$/gm;
    for (let match = fence.exec(text); match !== null; match = fence.exec(text)) {
      const line = text.slice(0, match.index).split('\n').length;
      const code = match[2]!;
      // The guest globals' declarations (docs/scripts.md) are no script.
      if (code.includes('declare const tools')) continue;
      found.push({ where: `${page}:${line}`, code, catalog: catalogByNames(code) });
    }
  }
  return found;
}

/** String literals given as `code` in the test and bench files (literals only: a template with substitutions is left out). */
function literalScripts(folders: readonly string[]): CorpusScript[] {
  const found: CorpusScript[] = [];
  for (const file of folders.flatMap((folder) => filesUnder(join(ROOT, folder)))) {
    // The type check's own tests hold scripts it must refuse.
    if (!file.endsWith('.ts') || file.includes(join('test', 'typecheck')) || file.endsWith(join('e2e', 'type-check.test.ts'))) {
      continue;
    }
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ESNext, true);
    // A test against server-everything calls its tools; any other test, a fixture's it made.
    const catalog: CorpusCatalog = /server-everything|everythingEntry|everything\.json/.test(text) ? 'everything' : 'loose';
    const visit = (node: ts.Node): void => {
      if (
        ts.isPropertyAssignment(node) &&
        ts.isIdentifier(node.name) &&
        node.name.text === 'code' &&
        ts.isStringLiteralLike(node.initializer) &&
        // `{ code: 'UPSTREAM_DOWN' }`: an error's code, not a script.
        !/^[A-Z_]+$/.test(node.initializer.text)
      ) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push({
          where: `${relative(ROOT, file)}:${line + 1}`,
          code: node.initializer.text,
          // Its tools are server-everything's when every name it calls is one of theirs.
          catalog: catalog === 'everything' && catalogByNames(node.initializer.text) === 'everything' ? 'everything' : 'loose',
          ...skillOf(ts, node.parent),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** A skill's spec (`{name, description, code}`) gives its code `input`, in its `language` (TypeScript unless it says otherwise). */
function skillOf(typescript: typeof ts, object: ts.Node): Pick<CorpusScript, 'skill'> {
  if (!typescript.isObjectLiteralExpression(object)) return {};
  const fields = new Map<string, ts.Expression>();
  for (const property of object.properties) {
    if (typescript.isPropertyAssignment(property) && typescript.isIdentifier(property.name)) {
      fields.set(property.name.text, property.initializer);
    } else if (typescript.isShorthandPropertyAssignment(property)) {
      fields.set(property.name.text, property.name);
    }
  }
  if (!fields.has('name') || !fields.has('description')) return {};
  const language = fields.get('language');
  const javascript = language !== undefined && typescript.isStringLiteralLike(language) && language.text === 'javascript';
  return { skill: { language: javascript ? 'javascript' : 'typescript' } };
}

/** A script that names examples/servers.json's tools was written for them; one naming no tool of a known catalog, for a fixture's. */
function catalogByNames(code: string): CorpusCatalog {
  const names = toolNamesIn(code);
  if (names.some((name) => name.startsWith('files__') || name.startsWith('memory__'))) return 'servers';
  return names.every((name) => EVERYTHING_NAMES.has(name)) ? 'everything' : 'loose';
}

/** server-everything's tool names, as a script names them with it alone. */
const EVERYTHING_NAMES = new Set([
  'echo',
  'get-sum',
  'get-env',
  'get-tiny-image',
  'get-structured-content',
  'get-annotated-message',
]);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') return [];
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The tool names a script names literally: `tools["x"]`, `tools.x`. */
export function toolNamesIn(code: string): string[] {
  const names = new Set<string>();
  for (const match of code.matchAll(/\btools\s*\[\s*(["'`])([^"'`]+)\1\s*\]|\btools\.([A-Za-z_$][\w$]*)/g)) {
    names.add(match[2] ?? match[3]!);
  }
  return [...names];
}
