/**
 * Three instances behind a real nginx, configured with docs/deploy.md's block as written (only its
 * ports changed), round-robin: a 2026-07-28 client (no session) starts 20 scripts, which land on
 * every instance, and each wait and stop reaches the script's own instance by Mcp-Param-Script;
 * 2025 clients stay on their sessions' instances; then one instance is killed, and a wait for its
 * scripts is answered that it is gone while the other instances' scripts go on; and one drains on
 * SIGTERM, its script answered until it ends while runs go elsewhere. Skips, saying so, where
 * nginx is missing; .ci/run installs it.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { INSTANCES, NGINX, prefixOf, startBehindNginx, type BehindNginx, type Instance, type Routed } from '../../bench/nginx.js';
import {
  connectHttp,
  mcpHeaders,
  rawRequest,
  startHttpServer,
  type HttpClient,
  type HttpServer,
} from '../support/http-server.js';
import { nodeEntry, publishedEntry, structuredOf, textOf, valueOf, writeConfig } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';

const TOKEN = 'nginx-test-token-0123456789abcdef';
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
/** A script that runs until stopped, after saying which it is. */
const endless = (n: number) => `console.log("script ${n}"); await sleep(600_000)`;

if (NGINX === undefined)
  process.stderr.write(
    'http-nginx.test.ts: nginx is not installed here (apt-get install nginx); skipping the load-balancer test\n',
  );

describe.skipIf(NGINX === undefined)('three instances behind nginx, round-robin', () => {
  const instances = {} as Record<Instance, HttpServer>;
  const clients: HttpClient[] = [];
  let cluster: BehindNginx<HttpServer> | undefined;
  let url = '';

  /** Every request nginx has logged so far. */
  const routed = (): Routed[] => cluster!.routed();
  /** The instance that answered a request (the last nginx tried). */
  const answeredBy = (request: Routed): Instance | undefined => cluster!.answeredBy(request);
  /** The log lines of the calls naming `script`, once nginx has logged `count` of them. */
  const callsNaming = (script: string, count: number): Promise<Routed[]> =>
    until(
      `nginx to log ${count} requests naming ${script}`,
      () => {
        const lines = routed().filter((request) => request.script === script);
        return lines.length >= count && lines;
      },
      () =>
        routed()
          .slice(-5)
          .map((request) => JSON.stringify(request))
          .join('\n'),
    );

  beforeAll(async () => {
    const config = writeConfig({ everything: nodeEntry(publishedEntry('server-everything')) });
    cluster = await startBehindNginx({
      dir: makeTempDir('nginx'),
      auth: { token: TOKEN },
      start: async (id, flags) =>
        (instances[id] = await startHttpServer([
          // echo asks for approval, so a script's call of it opens an approval page link (issue 46).
          ...['--config', config, ...flags, '--pool', '1', '--approvals', 'ask=echo'],
          // b drains on SIGTERM, as deployed instances do; the others stop at once (the tests' default).
          ...(id === 'b' ? ['--drain-grace-ms', '600000'] : []),
        ])),
    });
    url = cluster.url;
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await cluster?.stopNginx();
    for (const instance of Object.values(instances)) expect((await instance.stop()).left).toEqual([]);
  }, 60_000);

  /** The answer to a wait for a script of an instance that is gone. */
  const gone = (id: string) =>
    new RegExp(
      `^Refused: script "${id.replace('.', '\\.')}" was started on instance "${prefixOf(id)}", which is gone or unreachable`,
    );
  const scriptOf = (answer: CallToolResult) => structuredOf(answer).script as string;

  test(
    'a 2026-07-28 client starts 20 scripts on every instance, and each wait and stop reaches its own',
    { timeout: 120_000 },
    async () => {
      const client = await connectHttp(url, { token: TOKEN, name: 'modern', ...MODERN });
      clients.push(client);
      expect(client.transport.sessionId).toBeUndefined();
      expect(valueOf(await client.run({ code: 'return (await tools["get-sum"]({ a: 20, b: 22 })).content[0].text' }))).toContain(
        '42',
      );

      const runs: CallToolResult[] = [];
      for (let n = 0; n < 20; n++) runs.push(await client.run({ code: endless(n), yield_ms: 0 }));
      const ids = runs.map(scriptOf);
      // Runs name no instance: round-robin spreads them over all three.
      expect(new Set(ids.map(prefixOf))).toEqual(new Set(INSTANCES));

      for (const [n, id] of ids.entries()) {
        const waited = await client.run({ action: 'wait', script: id, yield_ms: 0 });
        expect(textOf(waited)).toMatch(new RegExp(`^Script ${id.replace('.', '\\.')} running`));
        const stopped = await client.run({ action: 'stop', script: id });
        expect(textOf(stopped)).toMatch(new RegExp(`^Script ${id.replace('.', '\\.')} stopped`));
        // Only this script's output came back (none, when it was stopped before its first line ran).
        const said =
          [runs[n]!, waited, stopped]
            .map(textOf)
            .join('\n')
            .match(/^script \d+$/gm) ?? [];
        expect(said.filter((line) => line !== `script ${n}`)).toEqual([]);
      }

      // The SDK client sent Mcp-Param-Script by itself (from the tool's x-mcp-header), and nginx sent
      // every wait and stop to the instance its script's id names.
      for (const id of ids) {
        const calls = await callsNaming(id, 2);
        expect(calls.map(answeredBy)).toEqual([prefixOf(id), prefixOf(id)]);
        expect(calls.map((call) => call.status)).toEqual(['200', '200']);
      }
      // The client had not listed the tools, so it sent the first wait without the header; refused
      // (-32020, HTTP 400), it listed them and sent the wait again with it, and every call after.
      expect(
        routed()
          .filter((request) => request.status !== '200' && request.status !== '202')
          .map(({ method, script, status }) => ({ method, script, status })),
      ).toEqual([{ method: 'tools/call', script: '', status: '400' }]);
      // Every instance served the client's other requests too.
      const others = routed().filter((request) => request.script === '' && request.session === '');
      expect(new Set(others.map(answeredBy))).toEqual(new Set(INSTANCES));
    },
  );

  test('tasks/get, tasks/update and tasks/cancel go to the instance their task id names (Mcp-Name)', async () => {
    const port = Number(new URL(url).port);
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      for (const instance of INSTANCES) {
        // A task id is its script's id and a random part; whatever the instance answers, it is the one asked.
        const taskId = `${instance}.abcdef-1.${method.slice('tasks/'.length)}`;
        await rawRequest(port, {
          headers: mcpHeaders({
            Authorization: `Bearer ${TOKEN}`,
            'MCP-Protocol-Version': '2026-07-28',
            'Mcp-Method': method,
            'Mcp-Name': taskId,
          }),
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { taskId } }),
        });
      }
    }
    const tasks = await until('nginx to log the nine task requests', () => {
      const lines = routed().filter((request) => request.method.startsWith('tasks/'));
      return lines.length >= 9 && lines;
    });
    expect(tasks.map((request) => answeredBy(request))).toEqual(tasks.map((request) => prefixOf(request.name)));
  });

  test("an approval page link reaches, through nginx, the instance holding its script (the link's prefix)", async () => {
    const client = await connectHttp(url, { token: TOKEN, name: 'asking', ...MODERN });
    clients.push(client);
    const nginxOrigin = new URL(url).origin;
    const seen = new Set<string>();
    // Runs land round-robin: enough of them reach every instance.
    for (let n = 0; seen.size < INSTANCES.length; n++) {
      const answer = textOf(await client.run({ code: `return (await tools.echo({ message: "hi ${n}" })).content[0].text` }));
      const script = /^Script (\S+) running/.exec(answer)![1]!;
      const link = /ask the user to open (http:\/\/127\.0\.0\.1:\d+\/approve\/(\w+)\.[A-Za-z0-9_-]+), then call wait/.exec(
        answer,
      );
      expect(link?.[2]).toBe(prefixOf(script));
      // The same link as a person behind nginx opens it (approvalPageUrl would name nginx's origin).
      const page = await fetch(link![1]!.replace(/^http:\/\/127\.0\.0\.1:\d+/, nginxOrigin));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(`<dt>Script</dt><dd>${script} of principal`);
      seen.add(prefixOf(script));
      // Decided at the instance itself, from its own origin, so the script ends.
      const html = await (await fetch(link![1]!)).text();
      const fields = Object.fromEntries(
        [...html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
      );
      const decided = await fetch(link![1]!, {
        method: 'POST',
        redirect: 'manual',
        headers: { Origin: new URL(link![1]!).origin, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...fields, choice: 'deny' }).toString(),
      });
      expect(decided.status).toBe(303);
      expect(textOf(await client.run({ action: 'wait', script }))).toMatch(
        /APPROVAL_DENIED: echo was refused: a person denied it/,
      );
    }
  });

  test("2025 clients stay on their sessions' instances through run, wait and stop", { timeout: 120_000 }, async () => {
    const sessions: HttpClient[] = [];
    for (const name of ['first', 'second', 'third']) sessions.push(await connectHttp(url, { token: TOKEN, name }));
    const sessionOf = (client: HttpClient) => client.transport.sessionId!;
    expect(new Set(sessions.map((client) => prefixOf(sessionOf(client)))).size).toBeGreaterThan(1);

    for (const [n, client] of sessions.entries()) {
      const ids: string[] = [];
      for (let k = 0; k < 7; k++) ids.push(scriptOf(await client.run({ code: endless(n * 7 + k), yield_ms: 0 })));
      // Every script of a session runs on the session's instance.
      expect(new Set(ids.map(prefixOf))).toEqual(new Set([prefixOf(sessionOf(client))]));
      for (const id of ids) {
        expect(textOf(await client.run({ action: 'wait', script: id, yield_ms: 0 }))).toMatch(/^Script \S+ running/);
        expect(textOf(await client.run({ action: 'stop', script: id }))).toMatch(/^Script \S+ stopped/);
      }
      expect(textOf(await client.run({ action: 'list' }))).toContain(ids[0]);
    }
    // nginx sent each session's every request to its instance.
    for (const client of sessions) {
      const session = sessionOf(client);
      const requests = routed().filter((request) => request.session === session);
      expect(requests.length).toBeGreaterThan(14);
      expect(new Set(requests.map(answeredBy))).toEqual(new Set([prefixOf(session)]));
      // Its DELETE too: the session ended on its instance, and no other heard of it.
      await client.close();
      const instance = prefixOf(session);
      await instances[instance].logged(
        new RegExp(`session ${session.replace('.', '\\.')} ended \\(the client ended it with DELETE\\)`),
      );
      for (const other of INSTANCES) if (other !== instance) expect(instances[other].stderr()).not.toContain(session);
    }
  });

  test('an instance killed mid-run: a wait for its scripts says it is gone, the others go on', { timeout: 120_000 }, async () => {
    const modern = await connectHttp(url, { token: TOKEN, name: 'modern-2', ...MODERN });
    clients.push(modern);
    const ids: string[] = [];
    for (let n = 0; n < 6; n++) ids.push(scriptOf(await modern.run({ code: endless(n), yield_ms: 0 })));
    expect(new Set(ids.map(prefixOf))).toEqual(new Set(INSTANCES));
    // A 2025 session on the instance that dies, and one on another.
    const legacy: HttpClient[] = [];
    while (!['c', 'a'].every((instance) => legacy.some((client) => prefixOf(client.transport.sessionId!) === instance))) {
      legacy.push(await connectHttp(url, { token: TOKEN, name: `legacy-${legacy.length}` }));
    }
    const onC = legacy.find((client) => prefixOf(client.transport.sessionId!) === 'c')!;
    const onA = legacy.find((client) => prefixOf(client.transport.sessionId!) === 'a')!;
    // Sessions on c end with it; the others are closed after the test.
    clients.push(...legacy.filter((client) => prefixOf(client.transport.sessionId!) !== 'c'));
    const legacyOnC = scriptOf(await onC.run({ code: endless(100), yield_ms: 0 }));
    const legacyOnA = scriptOf(await onA.run({ code: endless(101), yield_ms: 0 }));

    // A wait in flight on the instance as it dies is answered too, not left hanging.
    const doomed = ids.find((id) => prefixOf(id) === 'c')!;
    const inFlight = modern.run({ action: 'wait', script: doomed, yield_ms: 600_000 });
    const direct = await connectHttp(instances.c.url, { token: TOKEN, name: 'direct', ...MODERN });
    await until(
      'the wait to reach instance c',
      async () =>
        textOf(await direct.run({ action: 'list' })).includes(`${doomed} running for`) &&
        textOf(await direct.run({ action: 'list' })).includes('watched by a call now'),
    );
    await direct.client.close();
    expect((await instances.c.stop('SIGKILL')).signal).toBe('SIGKILL');

    const inFlightAnswer = await inFlight;
    expect(inFlightAnswer.isError).toBe(true);
    expect(textOf(inFlightAnswer)).toMatch(gone(doomed));
    // nginx sent it on to another instance when c broke off (proxy_next_upstream), which answered.
    const [retried] = await callsNaming(doomed, 1);
    expect(retried!.to.map((to) => cluster!.instanceAt(to))[0]).toBe('c');
    expect(answeredBy(retried!)).not.toBe('c');

    for (const id of ids) {
      const waited = await modern.run({ action: 'wait', script: id, yield_ms: 0 });
      if (prefixOf(id) === 'c') {
        expect(waited.isError).toBe(true);
        expect(textOf(waited)).toMatch(gone(id));
        expect(textOf(waited)).toContain('how the script ended is unknown');
      } else {
        expect(textOf(waited)).toMatch(/^Script \S+ running/);
        expect(textOf(await modern.run({ action: 'stop', script: id }))).toMatch(/^Script \S+ stopped/);
      }
    }
    // The 2025 session on c is gone with it (404); a new session, elsewhere, hears that c is gone.
    await expect(onC.run({ action: 'wait', script: legacyOnC, yield_ms: 0 })).rejects.toThrow(/404|Session not found/);
    for (const client of legacy) if (prefixOf(client.transport.sessionId!) === 'c') await client.client.close();
    const again = await connectHttp(url, { token: TOKEN, name: 'legacy-again' });
    clients.push(again);
    expect(prefixOf(again.transport.sessionId!)).not.toBe('c');
    expect(textOf(await again.run({ action: 'wait', script: legacyOnC, yield_ms: 0 }))).toMatch(gone(legacyOnC));
    // The session on a is untouched.
    expect(textOf(await onA.run({ action: 'wait', script: legacyOnA, yield_ms: 0 }))).toMatch(/^Script \S+ running/);
    expect(textOf(await onA.run({ action: 'stop', script: legacyOnA }))).toMatch(/^Script \S+ stopped/);
    // The sessions end now, while their instances are up.
    for (const client of clients.filter((each) => each.transport.sessionId !== undefined)) {
      clients.splice(clients.indexOf(client), 1);
      await client.close();
    }
  });

  test(
    'an instance draining on SIGTERM: runs go to the others, its script is answered until it ends, then it is gone',
    { timeout: 120_000 },
    async () => {
      const modern = await connectHttp(url, { token: TOKEN, name: 'modern-3', ...MODERN });
      clients.push(modern);
      let onB: string | undefined;
      while (onB === undefined) {
        const id = scriptOf(await modern.run({ code: endless(0), yield_ms: 0 }));
        if (prefixOf(id) === 'b') onB = id;
        else expect(textOf(await modern.run({ action: 'stop', script: id }))).toMatch(/^Script \S+ stopped/);
      }

      process.kill(instances.b.pid, 'SIGTERM');
      // Its count is of the children still out: a stopped script's child still exiting counts too.
      await instances.b.logged(/draining \(SIGTERM\): no new sessions or scripts; [1-9]\d* running scripts? may go on ending/);
      const health = await rawRequest(instances.b.port, {
        method: 'GET',
        path: '/healthz',
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect([health.status, health.json().status]).toEqual([503, 'draining']);
      // Runs land round-robin: a starts them; b refuses, saying to run again, and starts none.
      const answers = [];
      for (let n = 0; n < 4; n++) answers.push(await modern.run({ code: 'return 1' }));
      for (const answer of answers) {
        if (answer.isError === true)
          expect(textOf(answer)).toMatch(/^Refused: instance b is draining before it shuts down.*Run the script again/);
        else expect(prefixOf(scriptOf(answer))).toBe('a');
      }
      expect(answers.some((answer) => answer.isError === true)).toBe(true);

      // Its script is still answered there, through nginx, until it ends; then b shuts down.
      expect(textOf(await modern.run({ action: 'wait', script: onB, yield_ms: 0 }))).toMatch(/^Script b\.\S+ running/);
      expect(textOf(await modern.run({ action: 'stop', script: onB }))).toMatch(/^Script b\.\S+ stopped/);
      expect((await callsNaming(onB, 2)).map(answeredBy)).toEqual(['b', 'b']);
      await instances.b.logged(/drained: every running script has ended/);
      expect(await instances.b.exited).toEqual({ code: 143, signal: null });
      // A later wait for it reaches another instance, which says b is gone.
      expect(textOf(await modern.run({ action: 'wait', script: onB, yield_ms: 0 }))).toMatch(gone(onB));
    },
  );
});
