import { describe, expect, test } from 'vitest';
import { fixturePath, nodeEntry, publishedEntry, writeConfig } from '../support/mcp-client.js';
import { runInProcess } from '../support/in-process-command.js';
import { rawActing } from '../support/acting-characters.js';

describe('codemode-mcp tools', () => {
  test('prints every tool a script may call with its declaration, then the denied ones, and exits 0', async () => {
    const config = writeConfig({
      everything: nodeEntry(publishedEntry('server-everything'), ['stdio']),
      recorder: nodeEntry(fixturePath('upstreams/recorder.mjs'), [], { deny: ['secret'] }),
    });
    const { stdout, stderr, exitCode, left } = await runInProcess(['tools', '--config', config]);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(
      /^26 tools callable from scripts as tools\["name"\]\(args\), from 2 servers; 1 denied by the config\./,
    );
    expect(stdout).toContain('== everything__get-sum');
    expect(stdout).toContain('tools["everything__get-sum"](args: {');
    expect(stdout).toMatch(/Denied by the config \(not callable, and not named to the model\):\n {2}recorder__secret/);
    // Quiet: no upstream chatter, no "connected" line, no SDK noise, no signal to a slow-to-exit upstream.
    expect(stderr).toBe('');
    expect(left).toEqual([]);
  });

  // Regression (issue 45): an upstream's title, description, annotations and name reached the terminal raw.
  test("shows an upstream's names, descriptions and stderr with every acting character escaped", async () => {
    const config = writeConfig({ hostile: nodeEntry(fixturePath('upstreams/hostile-text.mjs')) });
    const { stdout, stderr, exitCode, left } = await runInProcess(['tools', '--config', config, '--log-level', 'info']);
    expect(exitCode).toBe(0);
    expect(rawActing(stdout, 'lines'), stdout).toEqual([]);
    expect(rawActing(stderr, 'lines'), stderr).toEqual([]);
    expect(stdout).toContain('== list\\u202eeman');
    expect(stdout).toContain('Wipes a path.\\u001b[8m hidden');
    expect(stderr).toContain('[hostile] hostile \\u001b[31mred\\u001b[0m \\u202egnp.exe');
    expect(left).toEqual([]);
  });

  test('ends a stubborn upstream (stays up after its stdin closes, ignores SIGTERM) and leaves no process', async () => {
    const { stdout, exitCode, left } = await runInProcess([
      'tools',
      '--',
      process.execPath,
      fixturePath('upstreams/stubborn.mjs'),
    ]);
    expect(exitCode).toBe(0);
    expect(stdout).toContain('== ping');
    expect(left).toEqual([]);
  });

  test('--log-level info shows what a one-shot command leaves out by default', async () => {
    const config = writeConfig({ everything: nodeEntry(publishedEntry('server-everything'), ['stdio']) });
    const { stderr, exitCode } = await runInProcess(['tools', '--config', config, '--log-level', 'info']);
    expect(exitCode).toBe(0);
    expect(stderr).toContain('codemode-mcp: upstream "everything" connected over stdio');
    expect(stderr).toContain('[everything] ');
  });

  test('takes the upstream after "--" too', async () => {
    const { stdout, exitCode } = await runInProcess([
      'tools',
      '--',
      process.execPath,
      fixturePath('upstreams/named-tools.mjs'),
      'ping',
    ]);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/^1 tool callable from scripts as tools\["name"\]\(args\), from 1 server\./);
    expect(stdout).toContain('== ping');
  });

  // Regression: one upstream failing left `tools` at exit 0 saying "from 1 server", as if that were all.
  test('exits 1 when any upstream could not start: prints the tools of the others, and names each failed one with why', async () => {
    const config = writeConfig({
      broken: nodeEntry(fixturePath('upstreams/exits-at-once.mjs')),
      recorder: nodeEntry(fixturePath('upstreams/recorder.mjs')),
      ghost: { command: 'codemode-no-such-command' },
    });
    const { stdout, stderr, exitCode, left } = await runInProcess(['tools', '--config', config]);
    expect(exitCode).toBe(1);
    expect(stdout).toMatch(
      /^10 tools callable from scripts as tools\["name"\]\(args\), from 1 server; not from "broken", "ghost", which could not start\./,
    );
    expect(stdout).toContain('== recorder__echo');
    // The missing command's words are the runtime's own: Node's ENOENT, Bun's "Executable not found".
    expect(stderr).toMatch(
      new RegExp(
        'codemode-mcp: 2 of 3 upstream servers could not start, and their tools are not listed:\n' +
          '  broken: it exited during startup; its stderr last said: "fatal: GITHUB_TOKEN is not set"\n' +
          '  ghost: (spawn codemode-no-such-command ENOENT|Executable not found in \\$PATH: "codemode-no-such-command")',
      ),
    );
    expect(left).toEqual([]);
  });

  test('exits 1 with each reason when no upstream could start', async () => {
    const config = writeConfig({ broken: nodeEntry(fixturePath('upstreams/exits-at-once.mjs')) });
    const { stdout, stderr, exitCode, left } = await runInProcess(['tools', '--config', config]);
    expect(exitCode).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      'codemode-mcp: no upstream server could start:\n  broken: it exited during startup; its stderr last said: "fatal: GITHUB_TOKEN is not set"',
    );
    expect(left).toEqual([]);
  });
});
