import { describe, expect, test } from 'vitest';
import { ResultTooLargeError, UpstreamAnswerError } from '../../src/support/errors.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { UpstreamHub, type UpstreamSettings } from '../../src/upstream/hub.js';
import { upstreamReadLimit } from '../../src/upstream/transport/read-limit.js';
import { collectLog, fixture, hubPerTest, textOf } from './specs.js';

const scratch = hubPerTest();

/** A hang guard far below the SDK's 60 s: an answer the SDK swallowed would keep the call open. */
const ANSWERED_WITHIN_MS = 5_000;

async function startMisbehaving(
  args: string[] = [],
  settings?: UpstreamSettings,
): Promise<{ hub: UpstreamHub; lines: string[] }> {
  const { lines, log } = collectLog();
  scratch.hub = new UpstreamHub([fixture('bad', 'misbehaving.mjs', { args })], {
    log,
    ...(settings !== undefined ? { settings } : {}),
  });
  await scratch.hub.start();
  return { hub: scratch.hub, lines };
}

/** The call's rejection (an Error saying it resolved, if it did). */
function rejectionOf(call: Promise<unknown>, what: string): Promise<unknown> {
  return within(
    call.then(
      () => new Error(`${what} resolved`),
      (error: unknown) => error,
    ),
    what,
  );
}

/** `promise`, or a failure naming `what` when it is still pending after ANSWERED_WITHIN_MS. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(
        () => reject(new Error(`${what} was still pending after ${ANSWERED_WITHIN_MS} ms`)),
        ANSWERED_WITHIN_MS,
      )),
  );
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

describe('an upstream answer that is not a tool result', () => {
  test.each([
    ['null-result', 'result must be an object; got null'],
    ['no-result', 'it is not a JSON-RPC message'],
    ['string-result', 'result must be an object; got "a string"'],
    ['invalid-result', 'content must be an array; got "not a list"'],
  ])('%s ends its call at once with what was wrong, and the upstream stays up', async (tool, detail) => {
    const { hub } = await startMisbehaving();
    const pid = textOf(await hub.callTool('pid', {}));
    const [error, concurrent] = await Promise.all([
      rejectionOf(hub.callTool(tool, {}), tool),
      hub.callTool('echo', { text: 'alongside' }),
    ]);
    expect(error).toBeInstanceOf(UpstreamAnswerError);
    expect((error as Error).message).toContain(
      `upstream bad answered the call to ${tool} with something that isn't a tool result (`,
    );
    expect((error as Error).message).toContain(detail);
    expect((error as Error).message).toMatch(/; the call may have taken effect$/);
    expect(textOf(concurrent)).toBe('alongside');
    expect(textOf(await hub.callTool('pid', {}))).toBe(pid);
    expect(hub.upstreamStatus()[0]).toMatchObject({ state: 'ready' });
  });

  test('a tools/list answered with null fails the start at once, saying so, instead of after the start timeout', async () => {
    const { hub, lines } = await within(startMisbehaving(['--bad-list', 'null']), 'the start');
    expect(hub.upstreamStatus()[0]).toMatchObject({
      state: 'down',
      reason: expect.stringContaining(
        "it answered tools/list with something that isn't a result (result must be an object; got null)",
      ),
    });
    expect(lines.some((line) => line.startsWith('codemode-mcp: upstream "bad" failed to start: it answered tools/list'))).toBe(
      true,
    );
  });
});

describe('a result too large to read', () => {
  test('fails just its call with ResultTooLarge, the connection and process survive, and a concurrent call succeeds', async () => {
    // 4 MiB of script memory: results past 1.33 MiB + 1 MiB are not read.
    const memoryMaxBytes = 4 * 1024 * 1024;
    const { hub, lines } = await startMisbehaving([], { ...defaults(), memoryMaxBytes });
    const limit = upstreamReadLimit(memoryMaxBytes);
    const pid = textOf(await hub.callTool('pid', {}));
    const [error, concurrent] = await Promise.all([
      rejectionOf(hub.callTool('big', { bytes: limit + 1 }), 'the large call'),
      hub.callTool('echo', { text: 'alongside' }),
    ]);
    expect(error).toBeInstanceOf(ResultTooLargeError);
    expect((error as ResultTooLargeError).why).toMatch(
      new RegExp(`^its result came as a message of \\d+ bytes, past the ${limit} bytes read from an upstream`),
    );
    expect(textOf(concurrent)).toBe('alongside');
    expect(textOf(await hub.callTool('big', { bytes: 1000 }))).toHaveLength(1000);
    expect(textOf(await hub.callTool('pid', {}))).toBe(pid);
    expect(lines.filter((line) => /exited|restarting/.test(line))).toEqual([]);
  });
});

function defaults(): UpstreamSettings {
  return { ...DEFAULT_SETTINGS };
}
