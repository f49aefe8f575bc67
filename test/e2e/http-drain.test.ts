/**
 * An HTTP instance drains on SIGTERM (drainGraceMs): it refuses new scripts and sessions, saying
 * where to go, answers /healthz 503 "draining", still answers wait and stop on the scripts it
 * runs, and shuts down once they have ended, once the grace has passed, or at a second SIGTERM.
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  INITIALIZE,
  connectHttp,
  mcpHeaders,
  rawRequest,
  startHttpServer,
  type HttpClient,
  type HttpServer,
} from '../support/http-server.js';
import { fixturePath, structuredOf, textOf } from '../support/mcp-client.js';
import { until } from '../support/waiting.js';

const upstream = ['--', process.execPath, fixturePath('upstreams/conformance-everything.mjs')];
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
const endless = 'console.log("working"); await sleep(600_000)';

const opened: HttpClient[] = [];
let server: HttpServer | undefined;

afterEach(async () => {
  for (const client of opened.splice(0)) await client.client.close();
  if (server !== undefined) expect((await server.stop()).left).toEqual([]);
  server = undefined;
});

async function start(graceMs: number): Promise<{ server: HttpServer; modern: HttpClient; legacy: HttpClient }> {
  server = await startHttpServer(['--instance-id', 'a', '--pool', '0', '--drain-grace-ms', String(graceMs), ...upstream]);
  const modern = await connectHttp(server.url, { name: 'modern', ...MODERN });
  const legacy = await connectHttp(server.url, { name: 'legacy' });
  opened.push(modern, legacy);
  return { server, modern, legacy };
}

const health = async (port: number) => {
  const answer = await rawRequest(port, { method: 'GET', path: '/healthz' });
  return { status: answer.status, state: answer.json().status };
};

describe('draining on SIGTERM', () => {
  test('refuses new scripts and sessions, answers wait and stop, and shuts down once its scripts have ended', async () => {
    const { server, modern, legacy } = await start(600_000);
    const scripts = [
      structuredOf(await modern.run({ code: endless, yield_ms: 0 })).script as string,
      structuredOf(await legacy.run({ code: endless, yield_ms: 0 })).script as string,
    ];
    expect(await health(server.port)).toEqual({ status: 200, state: 'serving' });

    process.kill(server.pid, 'SIGTERM');
    await server.logged(
      /draining \(SIGTERM\): no new sessions or scripts; 2 running scripts may go on ending for up to 10 min \(drainGraceMs\)/,
    );
    expect(await health(server.port)).toEqual({ status: 503, state: 'draining' });

    // A run, from either revision, is refused saying what to do; nothing starts.
    for (const client of [modern, legacy]) {
      const refused = await client.run({ code: 'return 1' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(
        /^Refused: instance a is draining before it shuts down, and starts no new script\. Run the script again: a load balancer sends it to another instance\./,
      );
    }
    // A new 2025 session is refused with 503, which a load balancer tries elsewhere.
    const initialize = await rawRequest(server.port, { headers: mcpHeaders(), body: JSON.stringify(INITIALIZE) });
    expect(initialize.status).toBe(503);
    expect(initialize.text).toContain('the server is draining before it shuts down; start a session on another instance');

    // The scripts it runs are still answered, by either client.
    for (const [client, id] of [
      [modern, scripts[0]!],
      [legacy, scripts[1]!],
    ] as const) {
      expect(textOf(await client.run({ action: 'wait', script: id, yield_ms: 0 }))).toMatch(/^Script a\.\S+ running/);
      expect(textOf(await client.run({ action: 'stop', script: id }))).toMatch(/^Script a\.\S+ stopped/);
    }
    await server.logged(/drained: every running script has ended/);
    expect(await server.exited).toEqual({ code: 143, signal: null });
    expect(server.stderr()).toContain('shutting down (SIGTERM)');
  });

  test.each([
    ['past drainGraceMs', 1_000, false, /drain grace \(1 s\) over: the shutdown stops the 1 running script left/],
    ['at a second SIGTERM', 600_000, true, /drain cut short by a second signal: the shutdown stops the 1 running script left/],
  ] as const)('%s, the drain ends and the shutdown stops the scripts left', async (_when, graceMs, again, said) => {
    const { server, modern } = await start(graceMs);
    const id = structuredOf(await modern.run({ code: endless, yield_ms: 0 })).script as string;
    process.kill(server.pid, 'SIGTERM');
    await server.logged(/draining \(SIGTERM\)/);
    if (again) process.kill(server.pid, 'SIGTERM');
    await server.logged(said);
    expect(await server.exited).toEqual({ code: 143, signal: null });
    expect(server.stderr()).toContain(`${id} stopped (principal shared)`);
  });

  test('with drainGraceMs 0, SIGTERM shuts down at once, stopping the scripts', async () => {
    const { server, modern } = await start(0);
    const id = structuredOf(await modern.run({ code: endless, yield_ms: 0 })).script as string;
    process.kill(server.pid, 'SIGTERM');
    expect(await server.exited).toEqual({ code: 143, signal: null });
    expect(server.stderr()).not.toContain('draining');
    expect(server.stderr()).toContain(`${id} stopped (principal shared)`);
  });

  // Regression: the owner and the connection were closed at once, before the answer was sent: a
  // 2025 client's open wait got an empty event stream (and hung), a 2026-07-28 client's HTTP 499.
  test("an open wait gets its script's ending at the shutdown, for a 2025 client and a 2026-07-28 one", async () => {
    const { server, modern, legacy } = await start(0);
    const waits = await Promise.all(
      [modern, legacy].map(async (client) => {
        const id = structuredOf(await client.run({ code: endless, yield_ms: 0 })).script as string;
        return { id, answer: client.run({ action: 'wait', script: id, yield_ms: 600_000 }) };
      }),
    );
    await until('both scripts to be watched', async () => {
      const listed = await Promise.all(
        [modern, legacy].map(async (client) => structuredOf(await client.run({ action: 'list' }))),
      );
      return listed.every((list) => (list.scripts as Array<{ watched: boolean }>).some((script) => script.watched));
    });
    process.kill(server.pid, 'SIGTERM');
    for (const { id, answer } of waits) {
      const ending = await answer;
      expect(structuredOf(ending)).toMatchObject({ script: id, status: 'stopped', stopReason: 'shutdown' });
      expect(textOf(ending)).toMatch(new RegExp(`^Script ${id} stopped`));
    }
    expect(await server.exited).toEqual({ code: 143, signal: null });
  });
});
