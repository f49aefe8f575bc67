/**
 * TypeScript in scripts: types are stripped here, in the script's own child, so that a script
 * whose text makes the stripper fail or take long costs only that script (its lifetime and its
 * stop bound the child; nothing of the server waits on it). Sucrase does the stripping (it keeps
 * every line where it was; bench/STRIP-TYPES.md has the numbers it was chosen by), and its source
 * map puts every token back at its column: stack frames and syntax errors point at the user's own
 * line and column. Stripping never joins two statements the author's text kept apart: where it
 * removes a statement or a member that is only types, or a type that ends a line, a `;` stands in
 * its place if the statement before could otherwise run on into the next (engine/type-statements.ts).
 */
import { decode } from '@jridgewell/sourcemap-codec';
import { endedEarly, lineCount, syntaxErrorAt } from '../common/script-position.js';
import { refusal, refusedConstruct, statementBreaks, type TypeToken } from './type-statements.js';

type Transform = (code: string, options: object) => { code: string; sourceMap?: { mappings: string } };
type Parse = (input: string, jsx: boolean, typeScript: boolean, flow: boolean) => { readonly tokens: readonly TypeToken[] };

/** Set by loadTypeStripper: a child loads it only for a script that is not JavaScript as written (script-run.ts). */
let sucrase: { readonly transform: Transform; readonly parse: Parse } | undefined;
let loading: Promise<void> | undefined;

/** Only types go: the rest of the language is left to QuickJS as written. */
const STRIP_OPTIONS = { transforms: ['typescript'], disableESTransforms: true, filePath: 'script.ts' };

/** The body is wrapped on lines of its own, so line n of the script is line n + 1 of what is stripped. */
const PREFIX = '(async function () {\n';
const SUFFIX = '\n})';

/** The script as JavaScript, or its error (a syntax error, or a construct refused) as the script would read it. */
export type Stripped = { readonly code: string } | { readonly error: string };

/** Loads the stripper, once; stripTypes may be called once this has settled. */
export function loadTypeStripper(): Promise<void> {
  loading ??= Promise.all([import('sucrase/dist/index.js'), import('sucrase/dist/parser/index.js')]).then(([main, parser]) => {
    sucrase = { transform: main.default.transform, parse: parser.default.parse };
  });
  return loading;
}

/** Whether loadTypeStripper has settled, so stripTypes may be called. */
export function typeStripperLoaded(): boolean {
  return sucrase !== undefined;
}

/**
 * The script as JavaScript, at the same lines and columns, meaning what the TypeScript meant; or
 * its error, at its line and column. Never throws: a failure of the stripper itself is the
 * script's error too.
 */
export function stripTypes(code: string): Stripped {
  if (sucrase === undefined) throw new Error('stripTypes was called before loadTypeStripper() settled');
  try {
    return strip(sucrase, code);
  } catch (error) {
    if (isSyntaxError(error)) return { error: describeSyntaxError(error, code) };
    return {
      error: syntaxErrorAt(
        `the TypeScript types could not be stripped (${(error as Error)?.message ?? String(error)}); write the script as JavaScript`,
        1,
        1,
      ),
    };
  }
}

function strip({ transform, parse }: NonNullable<typeof sucrase>, code: string): Stripped {
  const source = PREFIX + code + SUFFIX;
  // Without a source map first: a script with no types comes back as it went, and needs nothing more.
  if (transform(source, STRIP_OPTIONS).code === source) return { code };
  const { tokens } = parse(source, false, true, false);
  const construct = refusedConstruct(source, tokens);
  if (construct !== undefined) return { error: refusal(code, construct.refused.at - PREFIX.length, construct.refused.message) };
  const result = transform(source, { ...STRIP_OPTIONS, sourceMapOptions: { compiledFilename: 'script.js' } });
  const lines = realign(result.code, result.sourceMap?.mappings ?? '');
  if (lines.length !== lineCount(code) + 2) {
    // Sucrase keeps every line but where type-statements.ts refuses; a change would put every position after it wrong.
    return {
      error: syntaxErrorAt(
        `stripping the TypeScript types changed the script's line count; write the script as JavaScript`,
        1,
        1,
      ),
    };
  }
  const breaks = statementBreaks(source, tokens, lines);
  if ('refused' in breaks) return { error: refusal(code, breaks.refused.at - PREFIX.length, breaks.refused.message) };
  for (const offset of breaks.semicolons) {
    const placed = placeSemicolon(lines, source, offset);
    if (placed !== null) return { error: refusal(code, offset - PREFIX.length, placed) };
  }
  return { code: lines.slice(1, -1).join('\n') };
}

/** Puts a `;` where the removed statement at `offset` began; or says why it can't (the place is not blank). */
function placeSemicolon(lines: string[], source: string, offset: number): string | null {
  const before = source.slice(0, offset);
  const index = lineCount(before) - 1;
  const column = offset - (before.lastIndexOf('\n') + 1);
  const line = lines[index]!.padEnd(column + 1);
  if (line[column] !== ' ')
    return 'the types here could not be removed without joining statements: end the statement before them with ";"';
  lines[index] = `${line.slice(0, column)};${line.slice(column + 1)}`;
  return null;
}

/**
 * Each line of the output with its tokens moved back to the columns they had in the source: the
 * stripper leaves a line shorter where it removed types, and spaces before the next token give
 * the columns back. Spaces go only between tokens, never inside one; a line the stripper made
 * longer (an enum's members) keeps its own columns.
 */
function realign(output: string, mappings: string): string[] {
  const lines = output.split('\n');
  const segments = decode(mappings);
  return lines.map((line, index) => {
    let text = '';
    let from = 0;
    for (const segment of segments[index] ?? []) {
      const [generated, , sourceLine, sourceColumn] = segment;
      if (sourceLine !== index || sourceColumn === undefined || generated < from) continue;
      text += line.slice(from, generated);
      if (sourceColumn > text.length) text += ' '.repeat(sourceColumn - text.length);
      from = generated;
    }
    return text + line.slice(from);
  });
}

/** Sucrase's own errors carry the offset of what it could not read. */
function isSyntaxError(error: unknown): error is Error & { pos: number } {
  return error instanceof Error && typeof (error as { pos?: unknown }).pos === 'number';
}

/** The stripper's syntax error in the script's lines: its message, at its position; the wrapper's last line is the script ending early. */
function describeSyntaxError(error: Error & { pos: number }, code: string): string {
  const text = error.message.replace(/^Error transforming [^:]*: /, '').replace(/ \(\d+:\d+\)$/, '');
  const offset = error.pos - PREFIX.length;
  if (offset >= code.length) return endedEarly(code);
  return refusal(code, offset, text);
}
