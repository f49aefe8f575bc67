import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { startEarly } from '../../src/commands/serve-stdio/early-start.js';
import { startupWait } from '../../src/commands/serve-startup.js';
import type { LogLevel } from '../../src/support/log.js';
import type { UpstreamStatus } from '../../src/upstream/connection/upstream.js';

function recordingLog(): { lines: [string, LogLevel | undefined][]; log: (line: string, level?: LogLevel) => void } {
  const lines: [string, LogLevel | undefined][] = [];
  return { lines, log: (line, level) => void lines.push([line, level]) };
}

const statuses: UpstreamStatus[] = [
  { name: 'fast', state: 'ready', toolCount: 3 },
  { name: 'slow', state: 'connecting' },
  { name: 'back', state: 'connecting', toolCount: 2 },
] as UpstreamStatus[];
const hub = { upstreamStatus: () => statuses };

describe('the start-up wait', () => {
  it('is over when the upstreams have started, or failed to, and logs nothing', async () => {
    const { lines, log } = recordingLog();
    await startupWait(hub, Promise.resolve(), 60_000, log);
    await startupWait(hub, Promise.reject(new Error('collision')), 60_000, log);
    expect(lines).toEqual([]);
  });

  it('is over at its bound, naming the upstreams still starting for the first time', async () => {
    const { lines, log } = recordingLog();
    await startupWait(hub, new Promise(() => {}), 0, log);
    expect(lines).toEqual([
      [
        'codemode-mcp: the 0 s start-up wait (startupWaitMs) is over; still starting: slow; tools/list answers without their tools until they are up',
        'warn',
      ],
    ]);
  });
});

describe('the early start', () => {
  const invocation = {
    command: 'serve' as const,
    upstreams: [],
    settings: DEFAULT_SETTINGS,
    logging: { logLevel: 'info' as const, logFile: null },
    configPath: null,
  };

  it("has looked once stdin's first line is there, and puts it back for the transport", async () => {
    const stdin = new PassThrough();
    const early = startEarly(invocation, stdin);
    stdin.write('{"jsonrpc":"2.0","method":"ping","id":1}\n');
    await early.firstLook();
    early.stopWatching();
    expect(String(stdin.read())).toBe('{"jsonrpc":"2.0","method":"ping","id":1}\n');
  });

  it('stops looking at its bound when the client writes nothing', async () => {
    const stdin = new PassThrough();
    const early = startEarly(invocation, stdin);
    await early.firstLook();
    early.stopWatching();
    expect(stdin.read()).toBeNull();
  });
});
