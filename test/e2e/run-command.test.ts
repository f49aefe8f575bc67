/**
 * `codemode-mcp run <file|->`: one script, once, by hand, through the real bin and real upstreams;
 * on a real terminal, it asks a person there before a call that needs approval (issue 27).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';

import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  BIN,
  SERVER_RUNTIME,
  binArgs,
  fixturePath,
  nodeEntry,
  publishedEntry,
  runBin,
  writeConfig,
} from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

const dir = makeTempDir('run');
const everything = ['--', process.execPath, publishedEntry('server-everything'), 'stdio'];

function scriptFile(name: string, code: string): string {
  const file = join(dir, name);
  writeFileSync(file, code);
  return file;
}

describe('codemode-mcp run', () => {
  test('runs a TypeScript file against a real upstream, prints the answer text and exits 0', async () => {
    const file = scriptFile(
      'sum.ts',
      'interface Sum { content: { text: string }[] }\nconst r = (await tools["get-sum"]({ a: 2, b: 40 })) as Sum;\nconsole.log("checked");\nreturn r.content[0].text;\n',
    );
    const { stdout, exitCode, left } = await runBin(['run', file, ...everything]);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(
      /^Script [0-9a-f]{6}-1 finished\ncalls: 1 answered\nvalue: "The sum of 2 and 40 is 42\."\noutput:\nchecked$/,
    );
    expect(left).toEqual([]);
  });

  test('a script run by hand reads a resource of its upstream by template URI', async () => {
    const file = scriptFile('read.js', 'return (await resources.read("demo://resource/dynamic/text/3")).contents[0].uri;\n');
    const { stdout, exitCode, left } = await runBin(['run', file, ...everything]);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/^Script [0-9a-f]{6}-1 finished\ncalls: 1 answered\nvalue: "demo:\/\/resource\/dynamic\/text\/3"$/);
    expect(left).toEqual([]);
  });

  test('reads the script from stdin with -, and --json prints the whole answer, image block included', async () => {
    const config = writeConfig({ everything: nodeEntry(publishedEntry('server-everything'), ['stdio']) });
    const { stdout, exitCode } = await runBin(
      ['run', '-', '--json', '--config', config],
      'return await tools["get-tiny-image"]({})',
    );
    expect(exitCode).toBe(0);
    const answer = JSON.parse(stdout) as {
      content: Array<{ type: string; mimeType?: string }>;
      structuredContent: Record<string, unknown>;
      isError: boolean;
    };
    expect(answer.content.map((block) => block.type)).toEqual(['text', 'image']);
    expect(answer.content[1]).toMatchObject({ mimeType: 'image/png' });
    expect(answer.structuredContent).toMatchObject({ status: 'finished', shown: [{ type: 'image', mimeType: 'image/png' }] });
    expect(answer.isError).toBe(false);
  });

  test('exits 1 for a script that fails, with its error at its own line', async () => {
    const file = scriptFile('fails.js', 'const a = 1;\nthrow new Error("boom " + a);\n');
    const { stdout, exitCode, left } = await runBin([
      'run',
      file,
      '--',
      process.execPath,
      fixturePath('upstreams/named-tools.mjs'),
      'ping',
    ]);
    expect(exitCode).toBe(1);
    expect(stdout).toContain('error: Error: boom 1\n    at <anonymous> (script:2:');
    expect(left).toEqual([]);
  });

  test('exits 1 for a script stopped at its lifetime', async () => {
    const file = scriptFile('sleeps.js', 'await sleep(60000)');
    const { stdout, exitCode } = await runBin([
      'run',
      file,
      '--script-lifetime-ms',
      '1s',
      '--',
      process.execPath,
      fixturePath('upstreams/named-tools.mjs'),
      'ping',
    ]);
    expect(exitCode).toBe(1);
    expect(stdout).toMatch(/^Script \S+ stopped\n.*\nerror: Stopped at its lifetime of 1000 ms/);
  });

  test('exits 2, starting nothing, for an empty script or one it cannot read', async () => {
    const empty = await runBin([
      'run',
      scriptFile('empty.js', '  \n'),
      '--',
      process.execPath,
      fixturePath('upstreams/named-tools.mjs'),
      'ping',
    ]);
    expect(empty.exitCode).toBe(2);
    expect(empty.stdout).toBe('Refused: code is empty: give the body of an async function, e.g. "return 1 + 1".');
    expect(empty.stderr).toBe('');
    const missing = await runBin([
      'run',
      join(dir, 'nothing-here.js'),
      '--',
      process.execPath,
      fixturePath('upstreams/named-tools.mjs'),
      'ping',
    ]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stdout).toMatch(/^Refused: cannot read the script .*nothing-here\.js: ENOENT/);
  });

  test('exits 2 with the usage when the script is missing', async () => {
    const { stderr, exitCode } = await runBin(['run', '--', process.execPath, fixturePath('upstreams/named-tools.mjs')]);
    expect(exitCode).toBe(2);
    expect(stderr).toContain('codemode-mcp: run needs the script to run: a file, or - to read it from stdin:');
  });

  // util-linux's script(1) gives the command a real terminal: the question shows on it, and the answer is typed after it.
  test.runIf(existsSync('/usr/bin/script'))('on a terminal, asks the person there, and sends the call once allowed', async () => {
    const recordFile = join(makeTempDir('approvals-run-tty'), 'record.jsonl');
    const config = writeConfig(
      { items: nodeEntry(fixturePath('upstreams/deletable.mjs'), [], { env: { RECORD_FILE: recordFile } }) },
      { pool: 0 },
    );
    const deleted = (): unknown[] =>
      existsSync(recordFile)
        ? readFileSync(recordFile, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as { tool: string; id?: string })
            .filter((entry) => entry.tool === 'delete_item')
            .map((entry) => entry.id)
        : [];
    const file = scriptFile('tty.js', 'return (await tools.delete_item({ id: "t" })).content[0].text');
    const command = [SERVER_RUNTIME, ...binArgs(BIN, ['run', file, '--config', config])].map((arg) => `'${arg}'`).join(' ');
    const terminal = execa('/usr/bin/script', ['-qfec', command, '/dev/null'], { reject: false, stdin: 'pipe' });
    let shown = '';
    const questionShown = new Promise<void>((resolve) =>
      terminal.stdout.on('data', (chunk: Buffer) => {
        shown += chunk.toString();
        if (shown.includes('Choose 1-4')) resolve();
      }),
    );
    await questionShown;
    expect(deleted()).toEqual([]);
    terminal.stdin.write('1\n');
    await terminal;
    expect(shown).toContain('  1. Allow once');
    expect(shown).toContain('value: "deleted t"');
    expect(deleted()).toEqual(['t']);
  });
});
