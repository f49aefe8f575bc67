import { describe, expect, test } from 'vitest';
import { fixturePath, nodeEntry, valueOf, writeConfig } from '../support/mcp-client.js';
import { startInProcess } from '../support/in-process-server.js';

describe('startup', () => {
  test('the client is answered at once; tools/list waits for a slow upstream and names its tools', async () => {
    const config = writeConfig({
      slow: nodeEntry(fixturePath('e2e/slow-start.mjs'), ['1500']),
      quick: nodeEntry(fixturePath('upstreams/named-tools.mjs'), ['ping']),
    });
    const began = Date.now();
    // No pool: what is checked is the upstreams' start; the one run makes its child.
    const server = await startInProcess(['--config', config, '--pool', '0']);
    // Answered before the slow upstream was up: the line saying how each upstream stands isn't out yet.
    expect(server.stderr()).not.toMatch(/upstreams: /);
    const [tool] = (await server.client.listTools()).tools;
    const listedAfter = Date.now() - began;
    expect(listedAfter).toBeGreaterThanOrEqual(1_500);
    // Two servers: each tool is listed by its own name under its server.
    expect(tool!.description).toMatch(/\nslow \(1 tool[^\n]*\nhello(: [^\n]*)?\n/);
    expect(tool!.description).toMatch(/\nquick \(1 tool[^\n]*\nping(: [^\n]*)?$/);
    expect(valueOf(await server.run({ code: 'return (await tools["slow__hello"]({})).content[0].text' }))).toBe('hello');
    expect(await server.close()).toEqual([]);
  });

  test('an upstream that fails to start is reported on stderr and its calls refused; the others serve', async () => {
    const config = writeConfig({
      broken: nodeEntry(fixturePath('upstreams/exits-at-once.mjs')),
      quick: nodeEntry(fixturePath('upstreams/named-tools.mjs'), ['ping']),
    });
    const server = await startInProcess(['--config', config, '--pool', '0']);
    const [tool] = (await server.client.listTools()).tools;
    expect(tool!.description).toContain('quick__ping');
    expect(server.stderr()).toContain(
      'upstream "broken" failed to start: it exited during startup; its stderr last said: "fatal: GITHUB_TOKEN is not set"',
    );
    const result = await server.run({
      code: `
        const ping = (await tools["quick__ping"]({})).content[0].text;
        try { await tools["broken__anything"]({}) } catch (e) { return { ping, name: e.name, message: e.message } }
      `,
    });
    // An upstream that never listed its tools has no names yet: a call under its prefix is refused, naming why.
    expect(valueOf(result)).toMatchObject({
      ping: 'ping',
      name: 'ToolRefused',
      message: expect.stringMatching(/^UPSTREAM_DOWN: broken__anything was refused: upstream "broken" is down/),
    });
    expect(await server.close()).toEqual([]);
  });

  test('a tool name two upstreams both claim stops the server with exit code 1, naming both', async () => {
    // Server "a" with tool "__b" and server "a_" with tool "_b" both come out as "a____b".
    const config = writeConfig({
      a: nodeEntry(fixturePath('upstreams/named-tools.mjs'), ['__b']),
      a_: nodeEntry(fixturePath('upstreams/named-tools.mjs'), ['_b']),
    });
    const server = await startInProcess(['--config', config]);
    expect(await server.exited).toEqual({ code: 1 });
    expect(server.stderr()).toMatch(/NAME_COLLISION: "a____b" is both tool "__b" of upstream "a" and tool "_b" of upstream "a_"/);
    expect(await server.close()).toEqual([]);
  });

  test('a client that leaves while the upstreams are still starting: the server exits 0 and leaves nothing', async () => {
    const config = writeConfig({ slow: nodeEntry(fixturePath('e2e/slow-start.mjs'), ['3000']) });
    const server = await startInProcess(['--config', config]);
    expect(await server.close()).toEqual([]);
    expect(await server.exited).toEqual({ code: 0 });
    expect(server.stderr()).toContain('shutting down (the client closed the connection)');
  });
});
