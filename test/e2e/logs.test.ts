import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { nodeEntry, publishedEntry, runBin, startServer, writeConfig } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

const everything = (): Record<string, unknown> => ({ everything: nodeEntry(publishedEntry('server-everything'), ['stdio']) });

/** Serves one client that makes one upstream call, then closes; returns the server's stderr. */
async function serveOneCall(args: string[]): Promise<string> {
  const server = await startServer(args);
  const result = await server.run({ code: 'return (await tools["get-sum"]({ a: 2, b: 3 })).content[0].text' });
  expect(result.isError).toBeFalsy();
  expect(await server.close()).toEqual([]);
  return server.stderr();
}

describe('logs', () => {
  test('--log-level debug adds lines the default (info) leaves out: the start command and each tool call', async () => {
    const config = writeConfig(everything());
    const info = await serveOneCall(['--config', config]);
    const debug = await serveOneCall(['--config', config, '--log-level', 'debug']);
    for (const stderr of [info, debug]) expect(stderr).toContain('codemode-mcp: upstream "everything" connected over stdio');
    expect(debug).toContain('codemode-mcp: upstream "everything": starting');
    expect(debug).toMatch(/codemode-mcp: upstream "everything": tools\/call get-sum answered in \d+ ms/);
    expect(info).not.toContain('tools/call get-sum');
    expect(info).not.toContain('": starting');
  });

  test("settings.logLevel error leaves out the info lines: our own and the upstream's stderr", async () => {
    const info = await serveOneCall(['--config', writeConfig(everything())]);
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

  test('a log level that is not one is refused, naming the levels', async () => {
    const { exitCode, stderr } = await runBin(['--config', writeConfig(everything()), '--log-level', 'verbose']);
    expect(exitCode).toBe(2);
    expect(stderr).toContain('SETTING_INVALID: logLevel (--log-level) takes one of error, warn, info, debug; got "verbose"');
  });
});
