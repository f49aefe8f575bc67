import { describe, expect, test } from 'vitest';
import { fixturePath, nodeEntry, publishedEntry, runBin, writeConfig } from '../support/mcp-client.js';

describe('codemode-mcp tools', () => {
  test('prints every tool a script may call with its declaration, then the denied ones, and exits 0', async () => {
    const config = writeConfig({
      everything: nodeEntry(publishedEntry('server-everything'), ['stdio']),
      recorder: nodeEntry(fixturePath('upstreams/recorder.mjs'), [], { deny: ['secret'] }),
    });
    const { stdout, stderr, exitCode, left } = await runBin(['tools', '--config', config]);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(
      /^26 tools callable from scripts as tools\["name"\]\(args\), from 2 servers; 1 denied by the config\./,
    );
    expect(stdout).toContain('== everything__get-sum');
    expect(stdout).toContain('tools["everything__get-sum"](args: {');
    expect(stdout).toMatch(/Denied by the config \(not callable, and not named to the model\):\n {2}recorder__secret/);
    // The upstreams' own stderr chatter is left out.
    expect(stderr).not.toContain('[everything]');
    expect(left).toEqual([]);
  });

  test('takes the upstream after "--" too', async () => {
    const { stdout, exitCode } = await runBin([
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

  test('exits 1 with each reason when no upstream could start', async () => {
    const config = writeConfig({ broken: nodeEntry(fixturePath('upstreams/exits-at-once.mjs')) });
    const { stdout, stderr, exitCode, left } = await runBin(['tools', '--config', config]);
    expect(exitCode).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      'codemode-mcp: no upstream server could start:\n  broken: it exited during startup; its stderr last said: "fatal: GITHUB_TOKEN is not set"',
    );
    expect(left).toEqual([]);
  });
});
