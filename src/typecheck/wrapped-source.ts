/**
 * A script or skill as the checker compiles it: the body of an async function (top-level `await`
 * and `return`), a skill's with `input` typed from its schema, on the lines after a one-line
 * prefix, so the script's line n is the file's line n and its columns are its own.
 */
import { Script } from 'node:vm';
import { mayMeanOtherInTypeScript } from '../../common/generic-call.js';
import type { CheckSource, Language } from './raw-check.js';

export interface WrappedSource {
  readonly language: Language;
  readonly text: string;
}

/**
 * JavaScript when it compiles as JavaScript, as its run decides (engine/script-run.ts: QuickJS
 * compiles it, or the type stripper is loaded); V8 stands in for QuickJS here, and compiles only.
 * A declaration, not a parenthesized function, so V8 only pre-parses the body (its syntax errors
 * found all the same): compiled eagerly, a 1 MB script held the server's event loop for seconds.
 */
export function languageOf(code: string): Language {
  if (mayMeanOtherInTypeScript(code)) return 'typescript';
  try {
    new Script(`async function __codemode_language() {\n${code}\n}`, { filename: 'script' });
    return 'javascript';
  } catch {
    return 'typescript';
  }
}

export function wrapSource(source: CheckSource): WrappedSource {
  const language = source.language ?? languageOf(source.code);
  if (source.inputType === undefined) {
    return { language, text: `async function __codemode_script() {\n${source.code}\n}` };
  }
  // One line, whatever the schema: the script's lines stay the file's.
  const input = source.inputType.replace(/\s*\n\s*/g, ' ');
  const prefix =
    language === 'typescript'
      ? `async function __codemode_skill(input: ${input}) {`
      : `/** @param {${input}} input */ async function __codemode_skill(input) {`;
  return { language, text: `${prefix}\n${source.code}\n}` };
}

/** `// @ts-nocheck` among the comments before the code's first statement. */
export function optsOut(code: string): boolean {
  const leading = /^(?:\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*/.exec(code)?.[0] ?? '';
  return /@ts-nocheck\b/.test(leading);
}

/**
 * Whether the line before the 0-based `line` of the script (past blank lines and comments) is a
 * `// @ts-ignore` or `// @ts-expect-error`, which silence the line after them, as in TypeScript.
 */
export function silenced(lines: readonly string[], line: number): boolean {
  for (let at = line - 1; at >= 0; at -= 1) {
    const text = lines[at]!.trim();
    if (/^(?:\/\/\/?|\/\*+)\s*@ts-(?:ignore|expect-error)\b/.test(text)) return true;
    if (text !== '' && !text.startsWith('//') && !text.startsWith('*') && !text.startsWith('/*')) return false;
  }
  return false;
}
