/**
 * TypeScript in scripts: types are stripped here, in the server, before the script reaches its
 * child, so the child only ever runs JavaScript. Sucrase does the stripping (it keeps every line
 * where it was; bench/STRIP-TYPES.md has the numbers it was chosen by), and its source map puts
 * every token back at its column: stack frames and syntax errors point at the user's own line and
 * column, TypeScript or not. Plain JavaScript comes through unchanged.
 */
import { decode } from '@jridgewell/sourcemap-codec';
import { endedEarly, lineCount, syntaxErrorAt } from '../../common/script-position.js';

type Transform = (code: string, options: object) => { code: string; sourceMap?: { mappings: string } };

/** Set by loadTypeStripper: loading it is 16 ms that a `tools` command never needs. */
let transform: Transform | undefined;
let loading: Promise<void> | undefined;

/** Only types go: the rest of the language is left to QuickJS as written. */
const STRIP_OPTIONS = { transforms: ['typescript'], disableESTransforms: true, filePath: 'script.ts' };

/** The body is wrapped on lines of its own, so line n of the script is line n + 1 of what is stripped. */
const PREFIX = '(async function () {\n';
const SUFFIX = '\n})';

/**
 * 256 KiB: the longest script whose types are stripped. Stripping runs on the server's event
 * loop, at a few milliseconds per 200 lines; a longer script runs as JavaScript as written, and a
 * syntax error in it says so.
 */
export const STRIP_TYPES_MAX_CHARS = 256 * 1024;

/**
 * The script as JavaScript, or its syntax error; `unstripped` is what to add to a syntax error
 * QuickJS finds in a script too long to strip.
 */
export type Stripped = { readonly code: string; readonly unstripped?: string } | { readonly error: string };

/** The script as JavaScript, at the same lines and columns; or its syntax error, as the script would read it. */
export function stripTypes(code: string): Stripped {
  if (code.length > STRIP_TYPES_MAX_CHARS) {
    return {
      code,
      unstripped: ` (the script is ${code.length} characters, past the ${STRIP_TYPES_MAX_CHARS / 1024} KiB up to which TypeScript types are stripped, so it ran as JavaScript)`,
    };
  }
  const strip = loadedTransform();
  const source = PREFIX + code + SUFFIX;
  let result: { code: string; sourceMap?: { mappings: string } };
  try {
    // Without a source map first: a script with no types comes back as it went, and needs none
    // (a short script on an idle server: 0.35-0.39 ms against 0.54 with the map and realignment).
    result = strip(source, STRIP_OPTIONS);
    if (result.code === source) return { code };
    result = strip(source, { ...STRIP_OPTIONS, sourceMapOptions: { compiledFilename: 'script.js' } });
  } catch (error) {
    return { error: describeSyntaxError(error, code) };
  }
  const lines = realign(result.code, result.sourceMap?.mappings ?? '');
  // Sucrase keeps every line; a change here would put every position after it wrong.
  if (lines.length !== lineCount(code) + 2) {
    throw new Error(`stripping types changed the script's line count (${lineCount(code)} lines became ${lines.length - 2})`);
  }
  const body = lines.slice(1, -1).join('\n');
  const dropped = droppedNamespace(code, body);
  return dropped === null ? { code: body } : { error: dropped };
}

/** A script with the constructs models write, to warm the stripper's hot paths on. */
const WARM_UP_SCRIPT = [
  'interface Row { id: number; name?: string; tags: string[] }',
  'type Pair<A, B> = { a: A; b: B };',
  'enum Level { Low, High = 5 }',
  'const rows: Row[] = (await tools["t"]({ path: "/a" })).structuredContent as Row[];',
  'function first<T>(items: T[], fallback?: T): T | undefined { return items[0] ?? fallback; }',
  'const pair = { a: 1, b: "x" } satisfies Pair<number, string>;',
  'const text = `${rows.length} rows, ${(pair as Pair<number, string>).b}`;',
  'return [first<Row>(rows)!, text, Level.High, <string>text];',
].join('\n');

/**
 * Loads the stripper and warms it on a script with the constructs models write; stripTypes may be
 * called once this has settled. Sucrase is in the server's bundle as a part of its own, loaded
 * here: 16 ms, against 35 ms for requiring its hundred CommonJS files. Every script waits for it
 * (script.ts); the server starts it as it starts (startup.ts), so the first script finds it done.
 */
export function loadTypeStripper(): Promise<void> {
  loading ??= import('sucrase').then((sucrase) => {
    transform = sucrase.transform as Transform;
    stripTypes(WARM_UP_SCRIPT);
  });
  return loading;
}

function loadedTransform(): Transform {
  if (transform === undefined) throw new Error('stripTypes was called before loadTypeStripper() settled');
  return transform;
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

/**
 * Sucrase takes a namespace for a type and drops it whole, values and all: a script that has one
 * is refused with its position, rather than run without it.
 */
function droppedNamespace(code: string, body: string): string | null {
  const pattern = /(^|[\n;{}])([ \t]*)(export\s+)?(namespace|module)\s+[A-Za-z_$][\w$.]*\s*\{/g;
  for (let match = pattern.exec(code); match !== null; match = pattern.exec(code)) {
    const at = match.index + match[1]!.length + match[2]!.length;
    const keyword = match[0].slice(match[1]!.length + match[2]!.length);
    if (body.slice(at, at + keyword.length) === keyword) continue;
    const before = code.slice(0, at);
    const line = lineCount(before);
    return syntaxErrorAt(
      `TypeScript namespaces are not supported in scripts (stripping types would drop its values): use an object instead`,
      line,
      at - before.lastIndexOf('\n'),
    );
  }
  return null;
}

/** The stripper's syntax error in the script's lines: its message, at its position; the wrapper's last line is the script ending early. */
function describeSyntaxError(error: unknown, code: string): string {
  const { message = String(error), pos } = error as { message?: string; pos?: unknown };
  const text = message.replace(/^Error transforming [^:]*: /, '').replace(/ \(\d+:\d+\)$/, '');
  if (typeof pos !== 'number') return syntaxErrorAt(text, 1, 1);
  const offset = pos - PREFIX.length;
  if (offset >= code.length) return endedEarly(code);
  const before = code.slice(0, Math.max(0, offset));
  return syntaxErrorAt(text, lineCount(before), before.length - before.lastIndexOf('\n'));
}
