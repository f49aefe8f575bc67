import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { childPidsOf } from '../support/processes.js';
import { fixturePath, nodeEntry, valueOf, writeConfig } from '../support/mcp-client.js';
import { startInProcess, type InProcessServer } from '../support/in-process-server.js';

// One server for the file, default settings: each case must leave the upstream as it found it.
let server: InProcessServer;

beforeAll(async () => {
  server = await startInProcess(['--config', writeConfig({ bad: nodeEntry(fixturePath('upstreams/misbehaving.mjs')) })]);
});

afterAll(async () => {
  expect(await server.close()).toEqual([]);
  expect(childPidsOf(process.pid)).toEqual([]);
});

/**
 * A script that runs `call` beside a concurrent echo and reads the upstream's pid before and after:
 * how the call came out (value or thrown error), whether the echo answered, and both pids.
 */
function scriptAround(call: string): string {
  return `
    const pid = async () => (await tools["pid"]({})).content[0].text;
    const before = await pid();
    const outcome = async (promise) => {
      try {
        const result = await promise;
        return { isError: result.isError === true, length: result.content[0]?.text?.length, text: result.isError ? result.content[0].text : undefined };
      } catch (error) {
        return { thrown: error.name, message: error.message };
      }
    };
    const [call, echo] = await Promise.all([outcome(${call}), tools["echo"]({ text: "alongside" })]);
    return { call, echo: echo.content[0].text, samePid: (await pid()) === before };
  `;
}

async function runAround(call: string): Promise<{ call: Record<string, unknown>; echo: string; samePid: boolean }> {
  const result = await server.run({ code: scriptAround(call) });
  expect(result.structuredContent).toMatchObject({ status: 'finished' });
  return valueOf(result) as { call: Record<string, unknown>; echo: string; samePid: boolean };
}

describe('an upstream that answers badly, end to end with default settings', () => {
  // Regression: the SDK's ReadBuffer dropped the connection past 10 MiB; the upstream got a new
  // process and the concurrent call failed as "exited while the call was in flight".
  test('an 11 MB result reaches the script whole; the upstream keeps its process and a concurrent call succeeds', async () => {
    const outcome = await runAround('tools["big"]({ bytes: 11e6 })');
    expect(outcome).toEqual({ call: { isError: false, length: 11e6 }, echo: 'alongside', samePid: true });
  });

  test('a 50 MB result is ResultTooLarge in the script, saying the call took effect; the upstream keeps its process', async () => {
    const outcome = await runAround('tools["big"]({ bytes: 50e6 })');
    expect(outcome).toEqual({
      call: {
        thrown: 'ResultTooLarge',
        message: expect.stringMatching(
          /^The call took effect, but its result came as a message of 500000\d\d bytes, past the 45787818 bytes read from an upstream/,
        ),
      },
      echo: 'alongside',
      samePid: true,
    });
  });

  test.each([
    ['null-result', 'result must be an object; got null'],
    ['invalid-result', 'content must be an array; got "not a list"'],
    ['no-result', 'it is not a JSON-RPC message'],
  ])("%s is an isError result at once, saying the upstream answered something that isn't a tool result", async (tool, detail) => {
    const outcome = await runAround(`tools["${tool}"]({})`);
    expect(outcome).toEqual({
      call: {
        isError: true,
        length: expect.any(Number),
        text: expect.stringContaining(`upstream bad answered the call to ${tool} with something that isn't a tool result (`),
      },
      echo: 'alongside',
      samePid: true,
    });
    expect(outcome.call.text).toContain(detail);
  });

  // Regression: the result was rebuilt by the SDK's schema, by assignment, so an own "__proto__"
  // key became the object's prototype and was lost on the way to the script.
  test('a result comes to the script exactly as sent: own __proto__ and constructor keys, and fields no schema names', async () => {
    const result = await server.run({
      code: `const r = await tools["proto-keys"]({}); const s = r.structuredContent;
        return { keys: Object.keys(s), plainPrototype: Object.getPrototypeOf(s) === Object.prototype, polluted: ({}).polluted === undefined ? "no" : "yes", extra: r.extra, json: JSON.stringify(s) };`,
    });
    expect(valueOf(result)).toEqual({
      keys: ['__proto__', 'constructor', 'a'],
      plainPrototype: true,
      polluted: 'no',
      extra: 'kept',
      json: '{"__proto__":{"polluted":true},"constructor":5,"a":1}',
    });
  });
});
