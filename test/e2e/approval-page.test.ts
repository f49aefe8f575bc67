// Who gets the approval page's link (issue 46), end to end with the SDK's real client and the
// deletable fixture upstream, which records every call that reaches it: a client with URL-mode
// elicitation gets the link as one and is told when it is complete; with approvalVia "both" the
// client's question and the page race, the first answer winning; over --http the page is a route
// a browser reaches without the bearer token; approvalOpenBrowser hands the link to the desktop.
// (The page itself, in a browser: approval-page-browser.test.ts.)
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import { connectHttp, startHttpServer } from '../support/http-server.js';
import { TasksClient } from '../support/tasks-client.js';
import { fixturePath, nodeEntry, startServer, structuredOf, textOf, valueOf, writeConfig } from '../support/mcp-client.js';
import { deferred } from '../../src/support/deferred.js';
import { makeTempDir } from '../support/temp-dirs.js';
import { until } from '../support/waiting.js';

const TOKEN = 'approval-page-test-token-0123456789';

/** A config whose one upstream is the deletable fixture; `deleted()` says which ids reached it. */
function deletable(label: string, settings: Record<string, unknown> = {}) {
  const dir = makeTempDir(label);
  const recordFile = join(dir, 'record.jsonl');
  writeFileSync(recordFile, '');
  const config = writeConfig(
    { items: nodeEntry(fixturePath('upstreams/deletable.mjs'), [], { env: { RECORD_FILE: recordFile } }) },
    { pool: 0, ...settings },
  );
  const deleted = (): string[] =>
    readFileSync(recordFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { tool: string; id?: string })
      .filter((entry) => entry.tool === 'delete_item')
      .map((entry) => entry.id!);
  return { dir, config, deleted };
}

/** Decides on the page as its form would, from its own origin. */
async function decideOnPage(url: string, choice: string): Promise<number> {
  const html = await (await fetch(url)).text();
  const fields = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
  );
  const answer = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { Origin: new URL(url).origin, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, choice }).toString(),
  });
  return answer.status;
}

const linkIn = (text: string): string | undefined => /open (http:\/\/\S+\/approve\/[A-Za-z0-9_.-]+)/.exec(text)?.[1];

describe('a client that declares URL-mode elicitation', () => {
  test('gets the link as a URL elicitation; the page decides, the call is sent, and the client is told it is complete', async () => {
    const setup = deletable('approval-url');
    const asked = deferred<ElicitRequest['params']>();
    const server = await startServer(['--config', setup.config], {
      capabilities: { elicitation: { url: {} } },
      onElicit: (request) => {
        asked.resolve(request.params);
        return { action: 'accept' };
      },
    });
    const completed: string[] = [];
    server.client.setNotificationHandler(
      'notifications/elicitation/complete',
      (n) => void completed.push(n.params.elicitationId),
    );
    const run = server.run({ code: 'return (await tools.delete_item({ id: "u" })).content[0].text', yield_ms: 600_000 });
    const params = (await asked.promise) as { mode: string; url: string; elicitationId: string; message: string };
    expect(params.mode).toBe('url');
    expect(params.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/approve\/[A-Za-z0-9_-]{43}$/);
    expect(params.message).toMatch(
      /^Script \S+ of this session wants to make a call of delete_item, which asks for your approval/,
    );
    expect(setup.deleted()).toEqual([]);
    expect(await decideOnPage(params.url, 'allow')).toBe(303);
    expect(valueOf(await run)).toBe('deleted u');
    expect(setup.deleted()).toEqual(['u']);
    await until('the client to be told the elicitation is complete', () => completed.length > 0);
    expect(completed).toEqual([params.elicitationId]);
    expect(await server.close()).toEqual([]);
  });

  test('declining it in the client denies the call, nothing is sent, and the link says so', async () => {
    const setup = deletable('approval-url-decline');
    let url = '';
    const server = await startServer(['--config', setup.config], {
      capabilities: { elicitation: { url: {} } },
      onElicit: (request) => {
        url = (request.params as { url: string }).url;
        return { action: 'decline' };
      },
    });
    const result = await server.run({ code: 'try { await tools.delete_item({ id: "v" }) } catch (e) { return e.message }' });
    expect(valueOf(result)).toMatch(/^APPROVAL_DENIED: delete_item was refused: a person denied it/);
    expect(setup.deleted()).toEqual([]);
    const html = await (await fetch(url)).text();
    expect(html).toContain('<h1>Already decided: Denied</h1>');
    expect(html).toContain('declined to open this page from the MCP client');
    expect(html).not.toContain('<button');
    expect(await server.close()).toEqual([]);
  });
});

describe('approvalVia "both", for a client that can answer a form', () => {
  test('a decision on the page wins: the call is sent, and the client’s question is cancelled', async () => {
    const setup = deletable('approval-both-page', { approvalVia: 'both' });
    const cancelled = deferred<void>();
    const server = await startServer(['--config', setup.config], {
      capabilities: { elicitation: { form: {} } },
    });
    server.client.setRequestHandler('elicitation/create', (_request, ctx) => {
      // The person at the client never answers; the page does, and the client is told.
      return new Promise<ElicitResult>((_resolve, reject) => {
        ctx.mcpReq.signal.addEventListener('abort', () => {
          cancelled.resolve();
          reject(new Error('cancelled'));
        });
      });
    });
    const started = textOf(
      await server.run({ code: 'return (await tools.delete_item({ id: "w" })).content[0].text', yield_ms: 0 }),
    );
    const script = /^Script (\S+) running/.exec(started)![1]!;
    // The link is in a watch's answer once the question is out: watched again until it is.
    const url = await until('the link in an answer', async () =>
      linkIn(textOf(await server.run({ action: 'wait', script, yield_ms: 0 }))),
    );
    expect(await decideOnPage(url, 'allow')).toBe(303);
    await cancelled.promise;
    expect(structuredOf(await server.run({ action: 'wait', script }))).toMatchObject({ status: 'finished', value: 'deleted w' });
    expect(setup.deleted()).toEqual(['w']);
    expect(await server.close()).toEqual([]);
  });

  test('an answer in the client wins: the link then says the client decided, and decides nothing', async () => {
    const setup = deletable('approval-both-client', { approvalVia: 'both' });
    const answer = deferred<ElicitResult>();
    const server = await startServer(['--config', setup.config], {
      capabilities: { elicitation: { form: {} } },
      onElicit: () => answer.promise,
    });
    const started = textOf(
      await server.run({ code: 'try { await tools.delete_item({ id: "x" }) } catch (e) { return e.message }', yield_ms: 0 }),
    );
    const script = /^Script (\S+) running/.exec(started)![1]!;
    const waiting = await until('the link in an answer', async () => {
      const text = textOf(await server.run({ action: 'wait', script, yield_ms: 0 }));
      return linkIn(text) !== undefined && text;
    });
    expect(waiting).toMatch(/— the client is asking the user; they may instead open http:\/\/127\.0\.0\.1:\d+\/approve\//);
    answer.resolve({ action: 'accept', content: { decision: 'deny' } });
    expect(valueOf(await server.run({ action: 'wait', script }))).toMatch(/^APPROVAL_DENIED/);
    const url = linkIn(waiting)!;
    const html = await (await fetch(url)).text();
    expect(html).toContain('<h1>Already decided: Denied</h1>');
    expect(html).toContain('decided in the MCP client first');
    expect(await decideOnPage(url, 'allow')).toBe(409);
    expect(setup.deleted()).toEqual([]);
    expect(await server.close()).toEqual([]);
  });
});

describe('over --http', () => {
  test('the page is a route of the server: a browser reaches it without the bearer token, and its link names the instance', async () => {
    const setup = deletable('approval-http');
    const http = await startHttpServer(['--http-token', TOKEN, '--instance-id', 'a', '--config', setup.config]);
    try {
      const client = await connectHttp(http.url, { token: TOKEN });
      const answer = textOf(await client.run({ code: 'return (await tools.delete_item({ id: "y" })).content[0].text' }));
      const url = linkIn(answer)!;
      expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${http.port}/approve/a\\.[A-Za-z0-9_-]{43}$`));
      expect((await fetch(url)).status).toBe(200);
      // The bearer token still guards everything else.
      expect((await fetch(http.url, { method: 'POST', body: '{}' })).status).toBe(401);
      expect(await decideOnPage(url, 'allow')).toBe(303);
      const script = /^Script (\S+) running/.exec(answer)![1]!;
      expect(valueOf(await client.run({ action: 'wait', script }))).toBe('deleted y');
      expect(setup.deleted()).toEqual(['y']);
      expect(http.stderr()).not.toContain(url.slice(url.lastIndexOf('.') + 1));
      await client.close();
    } finally {
      expect((await http.stop()).left).toEqual([]);
    }
  });
});

describe('a 2026-07-28 client that declares no elicitation', () => {
  test('gets the link in the answer (no input_required), and its next wait has what the page allowed', async () => {
    const setup = deletable('approval-2026');
    const server = await startServer(['--config', setup.config], { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const answer = textOf(await server.run({ code: 'return (await tools.delete_item({ id: "m" })).content[0].text' }));
    expect(answer).toMatch(
      /^waiting for approval: delete_item\(\{"id":"m"\}\) — ask the user to open http:\/\/127\.0\.0\.1:\d+\/approve\/\S+, then call wait$/m,
    );
    expect(await decideOnPage(linkIn(answer)!, 'allow')).toBe(303);
    const script = /^Script (\S+) running/.exec(answer)![1]!;
    expect(valueOf(await server.run({ action: 'wait', script }))).toBe('deleted m');
    expect(setup.deleted()).toEqual(['m']);
    expect(await server.close()).toEqual([]);
  });
});

describe('a script run as an MCP task, for a client that declares no elicitation', () => {
  test("the link is in the task's status message; the page decides, and the task completes", async () => {
    const setup = deletable('approval-task');
    const http = await startHttpServer(['--config', setup.config]);
    try {
      const client = new TasksClient(http.url);
      const task = await client.codeExecution({
        code: 'return (await tools.delete_item({ id: "n" })).content[0].text',
        yield_ms: 0,
      });
      expect(task).toMatchObject({ resultType: 'task' });
      const taskId = task.taskId as string;
      const status = await until('the link in the task status', async () => {
        const message = (await client.getTask(taskId)).statusMessage as string;
        return linkIn(message) !== undefined && message;
      });
      expect(status).toMatch(
        /; waiting for approval: delete_item\(\{"id":"n"\}\) — ask the user to open http:\/\/127\.0\.0\.1:\d+\/approve\/\S+, then call wait$/,
      );
      expect(await decideOnPage(linkIn(status)!, 'allow')).toBe(303);
      const done = await until('the task to complete', async () => {
        const got = await client.getTask(taskId);
        return got.status === 'completed' && got;
      });
      expect(JSON.stringify(done.result)).toContain('deleted n');
      expect(setup.deleted()).toEqual(['n']);
    } finally {
      expect((await http.stop()).left).toEqual([]);
    }
  });
});

describe('approvalOpenBrowser over stdio', () => {
  test("opens each link in the desktop's browser (xdg-open), the same link the answer carries", async () => {
    const setup = deletable('approval-open', { approvalOpenBrowser: true });
    const bin = makeTempDir('fake-xdg-open');
    const opened = join(bin, 'opened.txt');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const server = await startServer(['--config', setup.config], { env: { PATH: `${bin}:${process.env.PATH ?? ''}` } });
    const answer = textOf(
      await server.run({ code: 'try { await tools.delete_item({ id: "z" }) } catch (e) { return e.message }' }),
    );
    const url = linkIn(answer)!;
    await until('xdg-open to be run', () => existsSync(opened) && readFileSync(opened, 'utf8') !== '');
    expect(readFileSync(opened, 'utf8')).toBe(`${url}\n`);
    expect(await decideOnPage(url, 'deny')).toBe(303);
    expect(setup.deleted()).toEqual([]);
    expect(await server.close()).toEqual([]);
  });
});
