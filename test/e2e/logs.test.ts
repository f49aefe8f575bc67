import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { nodeEntry, publishedEntry, runBin, startServer, textOf, writeConfig } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { recorderConfig } from '../support/recorder.js';

const everything = (): Record<string, unknown> => ({ everything: nodeEntry(publishedEntry('server-everything'), ['stdio']) });

/**
 * Serves one client that makes one upstream call, then closes; returns the server's stderr. No
 * pool (what is logged is not the pool's): the one run makes the one script child.
 */
async function serveOneCall(args: string[]): Promise<string> {
  const server = await startServer(['--pool', '0', ...args]);
  const result = await server.run({ code: 'return (await tools["get-sum"]({ a: 2, b: 3 })).content[0].text' });
  expect(result.isError).toBeFalsy();
  expect(await server.close()).toEqual([]);
  return server.stderr();
}

/** The stderr of one call served with the default log settings: the first two tests both read it. */
let infoRun: Promise<string> | undefined;
const servedAtInfo = (): Promise<string> => (infoRun ??= serveOneCall(['--config', writeConfig(everything())]));

describe('logs', () => {
  test('--log-level debug adds lines the default (info) leaves out: the start command and each tool call', async () => {
    const info = await servedAtInfo();
    const debug = await serveOneCall(['--config', writeConfig(everything()), '--log-level', 'debug']);
    for (const stderr of [info, debug]) expect(stderr).toContain('codemode-mcp: upstream "everything" connected over stdio');
    expect(debug).toContain('codemode-mcp: upstream "everything": starting');
    expect(debug).toMatch(/codemode-mcp: upstream "everything": tools\/call get-sum answered in \d+ ms/);
    expect(info).not.toContain('tools/call get-sum');
    expect(info).not.toContain('": starting');
  });

  test("settings.logLevel error leaves out the info lines: our own and the upstream's stderr", async () => {
    const info = await servedAtInfo();
    expect(info).toContain('[everything] ');
    expect(info).toContain('codemode-mcp: shutting down');
    const quiet = await serveOneCall(['--config', writeConfig(everything(), { logLevel: 'error' })]);
    expect(quiet).toBe('');
  });

  test('--log-file appends every line, with its time and level, and the lines still go to stderr', async () => {
    const file = join(makeTempDir('logs'), 'codemode.log');
    writeFileSync(file, 'an earlier line\n');
    const stderr = await serveOneCall(['--config', writeConfig(everything()), '--log-file', file]);
    const logged = readFileSync(file, 'utf8');
    expect(logged.startsWith('an earlier line\n')).toBe(true);
    expect(logged).toMatch(
      /\n\d{4}-\d\d-\d\dT[\d:.]+Z info codemode-mcp: upstream "everything" connected over stdio: \d+ tools\n/,
    );
    expect(logged).toMatch(/ info \[everything\] /);
    expect(stderr).toContain('codemode-mcp: upstream "everything" connected over stdio');
  });

  test("settings.logFile is taken from the config file's directory", async () => {
    const config = writeConfig(everything(), { logFile: 'logs-here.log' });
    await serveOneCall(['--config', config]);
    expect(readFileSync(join(config, '..', 'logs-here.log'), 'utf8')).toContain('connected over stdio');
  });

  test('a log file that cannot be opened is refused at start, saying what to do, and nothing is started', async () => {
    const config = writeConfig(everything());
    const missingDir = join(makeTempDir('logs'), 'no-such-dir', 'codemode.log');
    const refused = await runBin(['--config', config, '--log-file', missingDir]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      `codemode-mcp: LOG_FILE_INVALID: cannot append to the log file ${missingDir} (--log-file, settings.logFile): its directory ${join(missingDir, '..')} does not exist; create it, or give a path in a directory that does`,
    );
    expect(refused.left).toEqual([]);
    const directory = makeTempDir('logs');
    const isDir = await runBin(['--config', config, '--log-file', directory]);
    expect(isDir.exitCode).toBe(1);
    expect(isDir.stderr).toContain('it is a directory; give the path of a file in it');
  });

  test('a log file that is not a regular file or a terminal is refused at once, saying what it is: a FIFO nobody reads, a socket, a device', async () => {
    const config = writeConfig(everything());
    const dir = makeTempDir('logs');
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const socketPath = join(dir, 'sock');
    const listening = createServer().listen(socketPath);
    await once(listening, 'listening');
    try {
      for (const [path, kind] of [
        [fifo, 'a named pipe (FIFO), which would hold every log line until something reads it'],
        [socketPath, 'a socket'],
        ['/dev/full', 'a device other than a terminal'],
        ['/dev/null', 'a device other than a terminal'],
      ] as const) {
        const refused = await runBin(['--config', config, '--log-file', path]);
        expect(refused.exitCode, path).toBe(1);
        expect(refused.stderr).toContain(
          `codemode-mcp: LOG_FILE_INVALID: cannot append to the log file ${path} (--log-file, settings.logFile): it is ${kind}; give the path of a regular file (or a terminal)`,
        );
        expect(refused.left).toEqual([]);
      }
    } finally {
      listening.close();
    }
  });

  test('a log file whose writes start failing (here: past a file size limit) is given up once, said on stderr, and the server keeps serving', async () => {
    const file = join(makeTempDir('logs'), 'codemode.log');
    const server = await startServer([
      '--config',
      writeConfig(everything()),
      '--log-file',
      file,
      '--log-level',
      'debug',
      '--pool',
      '0',
    ]);
    const call = { code: 'return (await tools["get-sum"]({ a: 2, b: 3 })).content[0].text' };
    expect((await server.run(call)).isError).toBeFalsy();
    // From here every write to the file fails with EFBIG, as on a full disk with ENOSPC: the limit is
    // below the file's size, so a line the server writes meanwhile can't slip in before it holds.
    execFileSync('prlimit', [`--pid=${server.pid}`, '--fsize=1']);
    const size = statSync(file).size;
    for (let i = 0; i < 3; i++) {
      const result = await server.run(call);
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain('5');
    }
    expect(await server.close()).toEqual([]);
    const failures = server
      .stderr()
      .split('\n')
      .filter((line) => line.includes('LOG_FILE_FAILED'));
    expect(failures).toEqual([
      `codemode-mcp: LOG_FILE_FAILED: writing to the log file ${file} failed (EFBIG: file too large, write); logging to stderr only from now on; free space or fix the file, and restart to log there again`,
    ]);
    // The lines after the failure still reach stderr.
    expect(server.stderr().split('LOG_FILE_FAILED')[1]).toContain('tools/call get-sum answered');
    expect(statSync(file).size).toBe(size);
  });

  test('a log level that is not one is refused, naming the levels', async () => {
    const { exitCode, stderr } = await runBin(['--config', writeConfig(everything()), '--log-level', 'verbose']);
    expect(exitCode).toBe(2);
    expect(stderr).toContain(
      'SETTING_INVALID: logLevel (--log-level) must be "error", "warn", "info" or "debug" (got "verbose")',
    );
  });
});

describe('the audit log', () => {
  test('a path whose directory does not exist stops the server at start, saying so', async () => {
    const { config } = recorderConfig('audit-bad');
    const audit = join(makeTempDir('audit-bad'), 'missing', 'audit.jsonl');
    const { stderr, exitCode, left } = await runBin(['--config', config, '--pool', '0', '--audit-log', audit]);
    expect(exitCode).toBe(1);
    expect(left).toEqual([]);
    expect(stderr).toMatch(
      /LOG_FILE_INVALID: cannot append to the log file .*audit\.jsonl \(--audit-log, settings\.auditLog\): its directory .* does not exist/,
    );
  });
});
