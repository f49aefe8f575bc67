import { describe, expect, test } from 'vitest';
import { fixturePath, nodeEntry, writeConfig } from '../support/mcp-client.js';
import { startInProcess } from '../support/in-process-server.js';
import { until } from '../upstream/specs.js';

// No script runs here: no pool.
describe('start-up visibility', () => {
  test('when the start-up wait runs out, one log line and the description name the upstreams still starting', async () => {
    const config = writeConfig({
      slow: nodeEntry(fixturePath('e2e/slow-start.mjs'), ['600000']),
      quick: nodeEntry(fixturePath('upstreams/named-tools.mjs'), ['ping']),
    });
    const server = await startInProcess(['--config', config, '--startup-wait-ms', '5s', '--pool', '0']);
    await until(() => server.stderr().includes('upstream "quick" connected'));
    const [tool] = (await server.client.listTools()).tools;
    expect(tool!.description).toContain('quick__ping');
    expect(tool!.description).toContain('Upstream servers not serving their tools now:\n- slow is still starting');
    const waitLines = server
      .stderr()
      .split('\n')
      .filter((line) => line.includes('start-up wait'));
    expect(waitLines).toEqual([
      'codemode-mcp: the 5 s start-up wait (startupWaitMs) is over; still starting: slow; tools/list answers without their tools until they are up',
    ]);
    expect(await server.close()).toEqual([]);
  });

  test('an upstream past its start timeout is down, and the log and the description say which and why', async () => {
    const config = writeConfig({ slow: nodeEntry(fixturePath('e2e/slow-start.mjs'), ['600000']) });
    const server = await startInProcess(['--config', config, '--upstream-start-timeout-ms', '1s', '--pool', '0']);
    const [tool] = (await server.client.listTools()).tools;
    expect(tool!.description).toContain('- slow is down: it did not answer within 1 s (upstreamStartTimeoutMs)');
    await until(() => server.stderr().includes('upstream "slow" failed to start'));
    expect(server.stderr()).toContain(
      'codemode-mcp: upstream "slow" failed to start: it did not answer within 1 s (upstreamStartTimeoutMs); next attempt in 0.25 s',
    );
    expect(await server.close()).toEqual([]);
  });

  // A new user who ran it in a terminal saw nothing, and nothing started until a client connected.
  test('run in a terminal, it says what it waits for and how to connect; piped, it says nothing of it', async () => {
    const args = ['--pool', '0', '--', process.execPath, fixturePath('upstreams/recorder.mjs')];
    const atTerminal = await startInProcess(args, { terminal: true });
    const piped = await startInProcess(args);
    expect(atTerminal.stderr()).toMatch(/serving MCP over stdio, waiting for an MCP client's messages on stdin/);
    expect(atTerminal.stderr()).toContain('README, "Try it with the MCP Inspector"');
    expect(piped.stderr()).not.toContain('waiting for an MCP client');
    expect(await atTerminal.close()).toEqual([]);
    expect(await piped.close()).toEqual([]);
  });
});
