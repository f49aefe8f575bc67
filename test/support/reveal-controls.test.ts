// What a person reads must be what is true (issue 45): the one function that shows an upstream's,
// a script's or a client's text with its acting characters escaped, and the log that uses it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { quoteInput, revealControls } from '../../src/support/echo.js';
import { configureProcessLog, processLog } from '../../src/support/log.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { ACTING_KINDS, ALL_ACTING, rawActing } from './acting-characters.js';

describe('revealControls', () => {
  test.each(ACTING_KINDS)('writes %s as a visible escape', (_kind, char, shown) => {
    expect(revealControls(`a${char}b`)).toBe(`a${shown}b`);
  });

  test('keeps only newlines and tabs when the text is lines by design', () => {
    const revealed = revealControls(`one\ttwo\nthree${ALL_ACTING}`, 'lines');
    expect(revealed.startsWith('one\ttwo\nthree')).toBe(true);
    expect(rawActing(revealed, 'lines')).toEqual([]);
    expect(revealed.split('\n')).toHaveLength(3);
  });

  test('leaves ordinary text, other scripts and emoji alone', () => {
    const text = 'Löschen — 削除 — حذف — 🗑️ (U+200D joins: 👩‍💻)';
    expect(revealControls(text)).toBe(text);
  });

  test('keeps JSON text JSON that means the same', () => {
    const value = { path: `a${ALL_ACTING}b`, [`k\u202e`]: [1, '\u2028'] };
    const revealed = revealControls(JSON.stringify(value));
    expect(rawActing(revealed)).toEqual([]);
    expect(JSON.parse(revealed)).toEqual(value);
  });

  test('quoteInput quotes as JSON and escapes what JSON leaves raw (C1, bidi, separators)', () => {
    expect(quoteInput('rm\u202ecod.exe')).toBe('"rm\\u202ecod.exe"');
    expect(rawActing(quoteInput(ALL_ACTING))).toEqual([]);
    expect(JSON.parse(quoteInput(ALL_ACTING))).toBe(ALL_ACTING);
  });
});

describe('the log', () => {
  afterEach(() => configureProcessLog({ logLevel: 'info', logFile: null }, 'the test'));

  test('writes a line quoting hostile text with every acting character escaped, its own newlines kept', () => {
    const file = join(makeTempDir('reveal-log'), 'log.txt');
    configureProcessLog({ logLevel: 'info', logFile: file }, 'the test');
    const kinds = ACTING_KINDS.filter(([, char]) => char !== '\n' && char !== '\t');
    processLog(`codemode-mcp: upstream said ${kinds.map(([, char]) => char).join('')}\nsecond line`, 'info');
    const written = readFileSync(file, 'utf8');
    expect(rawActing(written, 'lines')).toEqual([]);
    expect(written).toContain(`upstream said ${kinds.map(([, , shown]) => shown).join('')}\n`);
    expect(written.trimEnd().split('\n')).toHaveLength(2);
  });
});
