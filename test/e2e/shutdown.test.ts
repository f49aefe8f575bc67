import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readRecord, until } from '../upstream/specs.js';
import {
  fixturePath,
  nodeEntry,
  publishedEntry,
  startServer,
  structuredOf,
  valueOf,
  writeConfig,
  type RunningServer,
} from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

/** A server in front of the recorder and server-everything, with two scripts running: one waiting on a call, one spinning. */
async function startBusyServer(): Promise<{ server: RunningServer; recordFile: string }> {
  const recordFile = join(makeTempDir('e2e-shutdown'), 'record.jsonl');
  const config = writeConfig({
    recorder: nodeEntry(fixturePath('upstreams/recorder.mjs'), [], { env: { RECORD_FILE: recordFile } }),
    everything: nodeEntry(publishedEntry('server-everything'), ['stdio']),
  });
  const server = await startServer(['--config', config]);
  const waiting = await server.run({ code: 'console.log("calling"); await tools["recorder__hang"]({})', yield_ms: 200 });
  const spinning = await server.run({ code: 'console.log("spinning"); while (true) {}', yield_ms: 200 });
  expect([structuredOf(waiting).status, structuredOf(spinning).status]).toEqual(['running', 'running']);
  await until(() => readRecord(recordFile).some((entry) => entry.event === 'call' && entry.tool === 'hang'));
  return { server, recordFile };
}

describe('shutdown', () => {
  test('the client closing stdin while scripts run: the server stops them, cancels their calls, exits 0 and leaves no process', async () => {
    const { server, recordFile } = await startBusyServer();
    expect(await server.close()).toEqual([]);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toContain('shutting down (the client closed the connection)');
    expect(readRecord(recordFile)).toContainEqual(expect.objectContaining({ event: 'cancelled', tool: 'hang' }));
  });

  test.each(['SIGTERM', 'SIGINT'] as const)(
    '%s while scripts run: the server exits 128 + the signal and leaves no process',
    async (signal) => {
      const { server, recordFile } = await startBusyServer();
      process.kill(server.pid, signal);
      expect(await server.exited).toEqual({ code: 128 + constants.signals[signal], signal: null });
      expect(await server.leftBehind()).toEqual([]);
      expect(server.stderr()).toContain(`shutting down (${signal})`);
      expect(readRecord(recordFile)).toContainEqual(expect.objectContaining({ event: 'cancelled', tool: 'hang' }));
      await server.client.close();
    },
  );

  test('an upstream behind a wrapper (as npx runs one) that ignores both its stdin closing and SIGTERM is still ended, within the 4 s a client allows', async () => {
    const config = writeConfig({
      stubborn: nodeEntry(fixturePath('e2e/wrapper.mjs'), [process.execPath, fixturePath('upstreams/stubborn.mjs')]),
    });
    const server = await startServer(['--config', config]);
    expect(valueOf(await server.run({ code: 'return (await tools["ping"]({})).content[0].text' }))).toBe('pong');
    // Within the client's 4 s: past them the SDK's client kills the server, and the exit would say SIGKILL.
    expect(await server.close()).toEqual([]);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    // By the shutdown's clock at 2.5 s, or sooner by the client's SIGTERM 2 s after it closed our stdin.
    expect(server.stderr()).toMatch(
      /SIGKILL to upstream "stubborn" \(process group \d+\), (still running 2\.5 s into shutdown|on a signal \(SIGTERM\) during the close)/,
    );
  });

  // Regression: a server whose stdin closed while an HTTP upstream's start was waiting for an
  // answer kept running until upstreamStartTimeoutMs had passed (here an hour: the test's timeout fails first).
  test('the client gone while upstreams are still starting (HTTP, SSE and stdio that never answer): the server exits at once', async () => {
    const held: ServerResponse[] = [];
    const silent = createServer((_request, response) => void held.push(response));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    try {
      const config = writeConfig({
        http: { type: 'http', url },
        sse: { type: 'sse', url },
        stdio: nodeEntry(fixturePath('upstreams/never-answers.mjs')),
      });
      const server = await startServer(['--config', config, '--upstream-start-timeout-ms', '60min', '--startup-wait-ms', '0']);
      await until(() => held.length >= 2);
      expect(await server.close()).toEqual([]);
      expect(await server.exited).toEqual({ code: 0, signal: null });
    } finally {
      for (const response of held) response.destroy();
      silent.close();
    }
  });
});
