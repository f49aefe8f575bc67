/**
 * A signal to a command that started upstreams (`run`, `tools`) or to the server: whatever it
 * started ends, a second signal hurries the end without abandoning anything, and the exit status
 * is the shell's 128 + the signal's number. Upstreams here ignore SIGTERM and outlive their stdin,
 * behind a wrapper as npx runs one, so only the process-group escalation ends them. A server over
 * HTTP with a tokens file reads the file again on SIGHUP instead, and a server reopens its audit log
 * on SIGUSR2. A signal ends `login` waiting for its redirect, closing the port it listened on.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants } from 'node:os';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  connectHttp,
  principalsArgs,
  startHttpServer,
  writeTokensFile,
  type HttpClient,
  type HttpServer,
} from '../support/http-server.js';
import {
  BIN,
  SERVER_RUNTIME,
  binArgs,
  fixturePath,
  nodeEntry,
  startServer,
  stderrLine,
  trackDescendants,
  valueOf,
  writeConfig,
} from '../support/mcp-client.js';
import { descendantsRunning } from '../support/processes.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { recorderConfig } from '../support/recorder.js';
import { remotePerTest, until } from '../upstream/specs.js';

const wrapped = (fixture: string): Record<string, unknown> =>
  nodeEntry(fixturePath('e2e/wrapper.mjs'), [process.execPath, fixturePath(`upstreams/${fixture}`)]);

type EndSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** Starts the bin with `args` at log level info (the upstreams' stderr shows), and its exit as execa gives it. */
function startBin(args: string[]) {
  const subprocess = execa(SERVER_RUNTIME, binArgs(BIN, [...args, '--log-level', 'info']), { reject: false, stdin: 'ignore' });
  const tracker = trackDescendants(subprocess.pid!);
  let stderr = '';
  subprocess.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  return {
    subprocess,
    stderr: () => stderr,
    /** Resolves once `text` is on its stderr. */
    said: (text: string) => until(() => stderr.includes(text)),
    /** Its exit, and the processes it started that are left once it is gone. */
    ended: async () => {
      const result = await subprocess;
      tracker.stop();
      return { exitCode: result.exitCode, signal: result.signal, left: await tracker.leftAlive(), stdout: result.stdout };
    },
  };
}

const status = (signal: EndSignal): number => 128 + constants.signals[signal];

function scriptFile(code: string): string {
  const file = join(makeTempDir('signals'), 'script.js');
  writeFileSync(file, code);
  return file;
}

describe('a signal to a command that started upstreams', () => {
  // Regression: `run` died by SIGTERM at once and left an upstream that ignores SIGTERM running in its own group.
  test.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    'run: %s while the script runs stops it, prints it stopped, ends every upstream process and exits 128 + the signal',
    async (signal) => {
      const config = writeConfig({ stubborn: wrapped('stubborn.mjs') });
      const run = startBin(['run', scriptFile('await tools.ping({}); await sleep(600_000);'), '--config', config]);
      await run.said('upstream "stubborn" connected');
      await until(() => descendantsRunning(run.subprocess.pid!, 'stubborn.mjs').length === 1);
      run.subprocess.kill(signal);
      const { exitCode, signal: killedBy, left, stdout } = await run.ended();
      expect({ exitCode, killedBy }).toEqual({ exitCode: status(signal), killedBy: undefined });
      expect(stdout).toMatch(/^Script \S+ stopped/);
      expect(left).toEqual([]);
    },
  );

  test.each([
    ['tools', 'SIGTERM'],
    ['run', 'SIGHUP'],
  ] as const)(
    '%s: %s while an upstream is still starting ends it at once, not after the start timeout',
    async (command, signal) => {
      const config = writeConfig({ silent: wrapped('never-answers.mjs') });
      const args = command === 'run' ? ['run', scriptFile('return 1'), '--config', config] : ['tools', '--config', config];
      const bin = startBin(args);
      await bin.said('started, never answering');
      bin.subprocess.kill(signal);
      const { exitCode, killedBy, left } = await bin.ended().then((end) => ({ ...end, killedBy: end.signal }));
      expect({ exitCode, killedBy }).toEqual({ exitCode: status(signal), killedBy: undefined });
      expect(left).toEqual([]);
      expect(bin.stderr()).toContain('ignoring SIGTERM');
    },
  );

  // Regression: a second Ctrl-C during the close killed `run` and left the upstream it was closing.
  test('a second signal during the close sends SIGKILL to what is left at once, and the command still exits by the first', async () => {
    const config = writeConfig({ stubborn: wrapped('stubborn.mjs') });
    const run = startBin(['run', scriptFile('await sleep(600_000)'), '--config', config]);
    await run.said('upstream "stubborn" connected');
    run.subprocess.kill('SIGINT');
    // The close has sent SIGTERM to the upstream's group, which ignores it.
    await run.said('ignoring SIGTERM');
    run.subprocess.kill('SIGINT');
    const { exitCode, left } = await run.ended();
    expect(exitCode).toBe(status('SIGINT'));
    expect(left).toEqual([]);
    expect(run.stderr()).toMatch(/SIGKILL to upstream "stubborn" \(process group \d+\), on a signal \(SIGINT\) during the close/);
  });
});

describe('a signal to the server', () => {
  test.each(['SIGHUP', 'SIGTERM'] as const)(
    'over stdio, %s ends every upstream process and exits 128 + the signal; a second one escalates',
    async (signal) => {
      const server = await startServer(['--config', writeConfig({ stubborn: wrapped('stubborn.mjs') })]);
      await until(() => descendantsRunning(server.pid, 'stubborn.mjs').length === 1);
      process.kill(server.pid, signal);
      await until(() => server.stderr().includes(`shutting down (${signal})`));
      process.kill(server.pid, signal);
      expect(await server.exited).toEqual({ code: status(signal), signal: null });
      expect(await server.leftBehind()).toEqual([]);
      await server.client.close();
    },
  );
});

// A team server rereads its tokens file on SIGHUP, as daemons do, rather than ending (issue 45's principals).
describe('SIGHUP to a server over HTTP with a tokens file', () => {
  const ADA = 'ada-token-0123456789abcdef';
  const BOB = 'bob-token-0123456789abcdef';
  const CY = 'cy-token-0123456789abcdefg';
  let server: HttpServer;
  let tokensFile: string;
  const clients: HttpClient[] = [];
  const connect = async (token: string): Promise<HttpClient> => {
    const client = await connectHttp(server.url, { token, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    tokensFile = writeTokensFile({ ada: ADA, bob: BOB });
    server = await startHttpServer(principalsArgs(tokensFile));
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    expect((await server.stop()).left).toEqual([]);
  });

  test('SIGHUP reads the file again: a principal added is let in, and the server keeps serving', async () => {
    await expect(connect(CY)).rejects.toThrow(/401/);
    writeFileSync(tokensFile, JSON.stringify({ ada: ADA, bob: BOB, cy: CY }));
    process.kill(server.pid, 'SIGHUP');
    await server.logged(/read the tokens file again on SIGHUP: 3 principals/);
    const cy = await connect(CY);
    expect(valueOf(await cy.run({ code: 'return "in"' }))).toBe('in');
  });

  test('a file made unreadable to others no longer is on SIGHUP: the tokens read before are kept, and it says why', async () => {
    chmodSync(tokensFile, 0o644);
    process.kill(server.pid, 'SIGHUP');
    await server.logged(/on SIGHUP, kept the tokens read before: TOKENS_FILE_INVALID: .*mode is 644/);
    chmodSync(tokensFile, 0o600);
    const cy = await connect(CY);
    expect(valueOf(await cy.run({ code: 'return "still"' }))).toBe('still');
  });
});

describe('the audit log of a server', () => {
  test('is reopened on SIGUSR2, so a rotation by renaming loses no line; --audit-arguments adds the arguments', async () => {
    const { config } = recorderConfig('audit-rotate');
    const dir = makeTempDir('audit-rotate');
    const audit = join(dir, 'audit.jsonl');
    const server = await startServer(['--config', config, '--pool', '0', '--audit-log', audit, '--audit-arguments']);
    expect((await server.run({ code: 'return await tools.echo({ text: "before" })' })).isError).toBe(false);
    renameSync(audit, join(dir, 'audit.jsonl.1'));
    process.kill(server.pid, 'SIGUSR2');
    await stderrLine(server, /audit log reopened/);
    expect(existsSync(audit)).toBe(true);
    expect((await server.run({ code: 'return await tools.echo({ text: "after" })' })).isError).toBe(false);
    expect(await server.close()).toEqual([]);
    const argsOf = (file: string): unknown[] =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { args: unknown }).args);
    expect(argsOf(join(dir, 'audit.jsonl.1'))).toEqual([
      { bytes: 17, sha256: createHash('sha256').update('{"text":"before"}').digest('hex'), value: { text: 'before' } },
    ]);
    expect(argsOf(audit).map((args) => (args as { value: unknown }).value)).toEqual([{ text: 'after' }]);
  });
});

describe('a signal to login', () => {
  const fixture = remotePerTest();

  test.each(['SIGTERM', 'SIGHUP'] as const)(
    'login ended by %s while it waits for the redirect stops listening and exits 128 + the signal',
    async (signal) => {
      const [, port] = await fixture.serve([fixturePath('upstreams/oauth-protected.mjs')], {}, /listening on (\d+)/);
      const config = writeConfig({ oauthy: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } });
      const home = makeTempDir('oauth-signal');
      const child = spawn(process.execPath, [BIN, 'login', 'oauthy', '--config', config, '--no-browser'], {
        env: { ...process.env, XDG_CONFIG_HOME: join(home, 'config') },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      let stderr = '';
      let link: string | undefined;
      for await (const line of createInterface({ input: child.stderr })) {
        stderr += `${line}\n`;
        link ??= /^\s+(http:\/\/\S+)$/.exec(line)?.[1];
        if (link !== undefined) break;
      }
      child.kill(signal);
      expect(await exited).toBe(status(signal));
      // The loopback port the redirect would come back to is closed.
      const redirect = (await fetch(link!, { redirect: 'manual' })).headers.get('location')!;
      await expect(fetch(redirect)).rejects.toThrow();
      expect(stderr).not.toContain('signed in');
    },
  );
});
