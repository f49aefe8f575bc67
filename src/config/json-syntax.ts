/**
 * Finds where strict JSON (RFC 8259) text first goes wrong, so a config error can give a line and
 * column: `JSON.parse` names a position in some Node versions and not in others. Iterative, so a
 * deeply nested file can't overflow the stack. Called only after `JSON.parse` has failed.
 */

export interface JsonSyntaxError {
  /** 1-based, in lines split at "\n". */
  line: number;
  /** 1-based, in UTF-16 code units from the line's start. */
  column: number;
  reason: string;
}

type State = 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'after';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX4 = /^[0-9a-fA-F]{4}$/;

class Failure {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  const failure = scan(text);
  if (failure === null) return null;
  return { ...lineAndColumn(text, failure.offset), reason: failure.reason };
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastNewline = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastNewline };
}

function scan(text: string): Failure | null {
  const open: ('{' | '[')[] = [];
  let state: State = 'value';
  let afterComma = false;
  let pos = 0;

  for (;;) {
    while (pos < text.length && ' \t\n\r'.includes(text[pos] as string)) pos++;
    const c = text[pos];

    if (state === 'after') {
      const top = open[open.length - 1];
      if (top === undefined) return c === undefined ? null : new Failure(pos, 'unexpected text after the end of the JSON value');
      const close = top === '{' ? '}' : ']';
      if (c === ',') {
        state = top === '{' ? 'key' : 'value';
        afterComma = true;
        pos++;
      } else if (c === close) {
        open.pop();
        pos++;
      } else if (c === undefined) {
        return new Failure(pos, `unexpected end of file; expected "," or "${close}"`);
      } else {
        return new Failure(pos, `expected "," or "${close}" after a value (a comma may be missing)`);
      }
      continue;
    }

    if (c === undefined) return new Failure(pos, 'unexpected end of file');
    if (c === '/') return new Failure(pos, 'comments are not allowed in JSON');

    if (state === 'valueOrClose' || state === 'keyOrClose') {
      if (c === (state === 'valueOrClose' ? ']' : '}')) {
        open.pop();
        pos++;
        state = 'after';
      } else {
        state = state === 'valueOrClose' ? 'value' : 'key';
      }
      continue;
    }

    if (afterComma && (c === ']' || c === '}')) return new Failure(pos, `trailing comma before "${c}" is not allowed in JSON`);
    afterComma = false;

    if (state === 'colon') {
      if (c !== ':') return new Failure(pos, 'expected ":" after a property name');
      pos++;
      state = 'value';
    } else if (state === 'key') {
      if (c !== '"') return new Failure(pos, 'expected a property name in double quotes');
      const end = scanString(text, pos);
      if (end instanceof Failure) return end;
      pos = end;
      state = 'colon';
    } else {
      const end = scanValueStart(text, pos, open);
      if (end instanceof Failure) return end;
      state = text[pos] === '{' ? 'keyOrClose' : text[pos] === '[' ? 'valueOrClose' : 'after';
      pos = end;
    }
  }
}

/** Scans a scalar, or steps into an object or array; returns the offset after what it read. */
function scanValueStart(text: string, pos: number, open: ('{' | '[')[]): number | Failure {
  const c = text[pos] as string;
  if (c === '{' || c === '[') {
    open.push(c);
    return pos + 1;
  }
  if (c === '"') return scanString(text, pos);
  if (c === "'") return new Failure(pos, 'strings must use double quotes in JSON');
  for (const literal of ['true', 'false', 'null']) {
    if (text.startsWith(literal, pos)) return pos + literal.length;
  }
  NUMBER.lastIndex = pos;
  if ((c === '-' || (c >= '0' && c <= '9')) && NUMBER.test(text)) return NUMBER.lastIndex;
  return new Failure(pos, `unexpected ${JSON.stringify(c)} where a value was expected`);
}

function scanString(text: string, start: number): number | Failure {
  let pos = start + 1;
  for (;;) {
    const c = text[pos];
    if (c === undefined) return new Failure(start, 'string is never closed');
    if (c === '"') return pos + 1;
    if (c < ' ') return new Failure(pos, 'control character in a string (write a newline as \\n, a tab as \\t)');
    if (c === '\\') {
      const escape = text[pos + 1] ?? '';
      if (escape === 'u') {
        if (!HEX4.test(text.slice(pos + 2, pos + 6))) return new Failure(pos, 'invalid \\u escape in a string');
        pos += 6;
        continue;
      }
      if (!ESCAPES.has(escape)) return new Failure(pos, 'invalid escape in a string');
      pos += 2;
      continue;
    }
    pos++;
  }
}
