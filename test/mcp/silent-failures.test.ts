import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { logFailure } from '../../src/support/log.js';
import { ROOT } from '../support/mcp-client.js';

/** A promise's failure or an 'error' event handed to a function that does nothing with it. */
const DROPPED = /\.catch\(\(\) => (\{\}|undefined|null|\[\])\)|\.on\('error', \(\) => \{\}\)|\.once\('error', \(\) => \{\}\)/g;

/**
 * The places where a do-nothing handler is right because the failure is read elsewhere: it only
 * keeps an unawaited rejection from ending the process. Each says so in a comment beside it.
 */
const READ_ELSEWHERE: Record<string, number> = {
  'src/upstream/transport/upstream-process.ts': 1, // `started`: its caller reads the failure when it adopts the process
  'src/script-host/script-child.ts': 1, // `ready`: the script waiting on it reads the failure
  'src/stdio/stdio-server-transport.ts': 1, // `lastWrite`: the caller of send() gets the write's failure
  'src/state/redis-store.ts': 1, // `connect()`: each failure is also an 'error' event, which the store logs and reports to each call
  'engine/script-run.ts': 1, // the stripper loaded as a skill is fetched: the skill's answer waits on the same load, and a failed one is the skill's SyntaxError
  'src/commands/run/terminal-approvals.ts': 1, // the queue of questions: each question's own promise carries its failure to the gate
  'src/state/dir-files.ts': 1, // removing the temp file of a write that failed: the write's own error is thrown
  'src/state/dir-store.ts': 1, // removing the temp file of a rename that failed: the rename's own error is thrown
  'src/typecheck/script-checker.ts': 1, // the queue of checks: each check's own promise carries its failure to its caller
  // the chain of messages (the caller of send() gets each one's failure), and a call's unknown tokens (read as its answer goes out)
  'src/mcp/tokens/tokenizing-transport.ts': 2,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('failures nobody waits on', () => {
  test('are logged (at debug, saying what was being done), not dropped: no do-nothing handler but those whose failure is read elsewhere', () => {
    const found: Record<string, number> = {};
    for (const world of ['src', 'engine', 'prelude', 'common', 'protocol']) {
      for (const file of sourceFiles(join(ROOT, world))) {
        const count = readFileSync(file, 'utf8').match(DROPPED)?.length ?? 0;
        if (count > 0) found[relative(ROOT, file)] = count;
      }
    }
    expect(found).toEqual(READ_ELSEWHERE);
  });

  test('logFailure writes one debug line: what was being done, and why it failed', () => {
    const lines: Array<[string, string | undefined]> = [];
    logFailure('closing upstream "files"', (line, level) => lines.push([line, level]))(new Error('EPIPE'));
    logFailure('a progress notification', (line, level) => lines.push([line, level]))('not connected');
    expect(lines).toEqual([
      ['codemode-mcp: closing upstream "files" failed: EPIPE', 'debug'],
      ['codemode-mcp: a progress notification failed: not connected', 'debug'],
    ]);
  });
});
