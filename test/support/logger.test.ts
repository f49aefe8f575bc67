/** The Logger writes `codemode-mcp: ` once, its scopes after it, at the level its method names; lines typed with the prefix fail lint. */
import { describe, expect, it } from 'vitest';
import { Logger, logFailure, prefixLine, type LogLevel } from '../../src/support/log.js';
import { sourceFiles } from './source-files.js';

function captured(): { readonly lines: Array<[string, LogLevel | undefined]>; readonly log: Logger } {
  const lines: Array<[string, LogLevel | undefined]> = [];
  return { lines, log: Logger.of((line, level) => lines.push([line, level])) };
}

describe('the logger', () => {
  it('starts each line with codemode-mcp: and gives the sink the level of its method', () => {
    const { lines, log } = captured();
    log.error('e');
    log.warn('w');
    log.info('i');
    log.debug('d');
    log.at('warn', 'chosen as it ran');
    expect(lines).toEqual([
      ['codemode-mcp: e', 'error'],
      ['codemode-mcp: w', 'warn'],
      ['codemode-mcp: i', 'info'],
      ['codemode-mcp: d', 'debug'],
      ['codemode-mcp: chosen as it ran', 'warn'],
    ]);
  });

  it("adds a child's scope after the prefix, and a grandchild's after that, leaving its parent as it was", () => {
    const { lines, log } = captured();
    const approval = log.child('approval');
    approval.info('asking about 1 call(s) of delete_file');
    approval.child('page').warn('refused a decision');
    log.info('plain');
    expect(lines.map(([line]) => line)).toEqual([
      'codemode-mcp: approval: asking about 1 call(s) of delete_file',
      'codemode-mcp: approval: page: refused a decision',
      'codemode-mcp: plain',
    ]);
  });

  it('says what failed at debug through the logger, and prefixes a line printed where there is no log', () => {
    const { lines, log } = captured();
    logFailure('closing upstream "files"', log.sink)(new Error('EPIPE'));
    expect(lines).toEqual([['codemode-mcp: closing upstream "files" failed: EPIPE', 'debug']]);
    expect(prefixLine('CONFIG_INVALID: x')).toBe('codemode-mcp: CONFIG_INVALID: x');
  });
  it('is the only writer of the prefix in src/: no other file types it', () => {
    const typed = sourceFiles('src')
      .filter((file) => !file.path.endsWith('support/log.ts') && /[`'"]codemode-mcp: /.test(file.text))
      .map((file) => file.path);
    expect(typed).toEqual([]);
  });
});
