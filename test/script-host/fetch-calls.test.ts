/**
 * fetch() in a script's own child, made by the server's real fetcher against HTTP servers the
 * tests start on 127.0.0.1: the web's API as a script uses it (Headers, bodies, Response), each
 * refusal as the script sees it, a failure as a TypeError, a credential the script can't reach,
 * and a request that waits for a person.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { ApprovalGate } from '../../src/approvals/approval-gate.js';
import type { FetchOriginRule } from '../../src/config/fetch-setting.js';
import { fetchApi, type ApproveRequest } from '../../src/fetch/fetch-api.js';
import { Fetcher } from '../../src/fetch/fetcher.js';
import { ApprovalTally, approveThrough } from '../../src/scripts/approved-calls.js';
import type { FetchCaller } from '../../src/script-host/apis.js';
import type { ScriptReturn } from '../../src/script-host/types.js';
import { closeTargets, originRule, startTarget, type FetchTarget } from '../support/fetch-target.js';
import { waitForNoChildren } from '../support/processes.js';
import { runScript, startScript } from '../support/scripts.js';
import { until } from '../support/waiting.js';

afterEach(async () => {
  await closeTargets();
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

const TOKEN = 'tok_9f8e7d6c5b4a-SECRET';

function callFetchOf(rules: FetchOriginRule[], approve?: ApproveRequest, log: (line: string) => void = () => {}): FetchCaller {
  const fetcher = new Fetcher({ rules, maxBytes: 1024 * 1024, timeoutMs: 30_000, log });
  return fetchApi(
    fetcher,
    'local',
  )({
    id: 'test',
    caller: { script: { id: 'test', principal: 'local', session: 'the client' } },
    ...(approve !== undefined ? { approve } : {}),
  });
}

async function valueOf(code: string, callFetch?: FetchCaller): Promise<unknown> {
  const ret = await runScript(code, callFetch ? { callFetch } : {});
  expect(ret.status, ret.error).toBe('finished');
  return ret.value === undefined ? undefined : JSON.parse(ret.value);
}

/** Answers with what it got: method, path, headers and body (as text, and its bytes). */
function echo(): Promise<FetchTarget> {
  return startTarget((request, response) => {
    if (request.path === '/binary') {
      response.setHeader('content-type', 'application/octet-stream');
      return void response.end(Buffer.from([0x00, 0xff, 0xfe, 0x41, 0xe2, 0x82, 0xac, 0xc3]));
    }
    response.setHeader('content-type', 'application/json');
    response.setHeader('x-multi', ['a', 'b']);
    response.end(
      JSON.stringify({
        method: request.method,
        path: request.path,
        headers: request.headers,
        body: request.body.toString('utf8'),
        bytes: [...request.body],
      }),
    );
  });
}

describe('fetch in a script', () => {
  it("reads a listed origin's answer as the web's Response: status, headers, url, and the body as JSON, text or bytes", async () => {
    const api = await echo();
    const value = await valueOf(
      `const res = await fetch("${api.origin}/items?x=1", { headers: { "X-One": " 1 " } });
       const data = await res.clone().json();
       const seen = [];
       res.headers.forEach((value, name) => seen.push(name));
       const bytes = new Uint8Array(await res.clone().arrayBuffer());
       return {
         status: res.status, ok: res.ok, statusText: res.statusText, url: res.url, redirected: res.redirected,
         type: res.headers.get("Content-Type"), multi: res.headers.get("x-multi"), has: res.headers.has("X-MULTI"),
         entries: [...res.headers.entries()].some(([n]) => n === "content-type"), sorted: seen.join() === [...seen].sort().join(),
         isHeaders: res.headers instanceof Headers, isResponse: res instanceof Response,
         method: data.method, path: data.path, one: data.headers["x-one"],
         text: (await res.text()).startsWith("{"), used: res.bodyUsed, bytesMatch: bytes.length > 10 && bytes[0] === 123,
         again: await res.text().then(() => "read twice", (e) => e.name + ": " + e.message),
       };`,
      callFetchOf([originRule(api.origin)]),
    );
    expect(value).toEqual({
      status: 200,
      ok: true,
      statusText: 'OK',
      url: `${api.origin}/items?x=1`,
      redirected: false,
      type: 'application/json',
      multi: 'a, b',
      has: true,
      entries: true,
      sorted: true,
      isHeaders: true,
      isResponse: true,
      method: 'GET',
      path: '/items?x=1',
      one: '1',
      text: true,
      used: true,
      bytesMatch: true,
      again: 'TypeError: Response.text(): the body has already been read',
    });
  });

  it('sends a body as a string, JSON text, a Uint8Array or an ArrayBuffer, and headers as an object, pairs or Headers', async () => {
    const api = await echo();
    const value = await valueOf(
      `const post = async (body, headers) => (await (await fetch("${api.origin}/p", { method: "post", body, headers })).json());
       const text = await post("héllo €");
       const json = await post(JSON.stringify({ a: [1, 2] }), [["Content-Type", "application/json"], ["X-Two", "2"]]);
       const bytes = await post(new Uint8Array([0, 1, 255]), new Headers({ "x-three": "3" }));
       const buffer = await post(new Uint8Array([9, 8, 7]).buffer);
       return {
         text: [text.method, text.body, text.headers["content-type"]],
         json: [json.body, json.headers["content-type"], json.headers["x-two"]],
         bytes: [bytes.bytes, bytes.headers["x-three"]],
         buffer: buffer.bytes,
       };`,
      callFetchOf([originRule(api.origin, { methods: ['POST'], approval: 'allow' })]),
    );
    expect(value).toEqual({
      text: ['POST', 'héllo €', 'text/plain;charset=UTF-8'],
      json: ['{"a":[1,2]}', 'application/json', '2'],
      bytes: [[0, 1, 255], '3'],
      buffer: [9, 8, 7],
    });
  });

  it('gives a body that is not UTF-8 as its bytes, and as text with each bad sequence a U+FFFD', async () => {
    const api = await echo();
    const value = await valueOf(
      `const res = await fetch("${api.origin}/binary");
       const copy = res.clone();
       return { bytes: [...new Uint8Array(await res.arrayBuffer())], text: [...await copy.text()].map((c) => c.codePointAt(0)) };`,
      callFetchOf([originRule(api.origin)]),
    );
    expect(value).toEqual({
      bytes: [0x00, 0xff, 0xfe, 0x41, 0xe2, 0x82, 0xac, 0xc3],
      text: [0, 0xfffd, 0xfffd, 0x41, 0x20ac, 0xfffd],
    });
  });

  it('rejects a refusal with ToolRefused whose code names the rule, and a network failure with TypeError', async () => {
    const api = await echo();
    const closed = await startTarget(() => {});
    const closedOrigin = closed.origin;
    await closed.close();
    const value = await valueOf(
      `const outcome = (p) => p.then(() => "answered", (e) => ({ name: e.name, code: e.code, message: e.message }));
       return {
         origin: await outcome(fetch("https://api.github.com/user")),
         method: await outcome(fetch("${api.origin}/x", { method: "DELETE" })),
         credential: await outcome(fetch("${api.origin}/x", { headers: { Authorization: "Bearer mine" } })),
         network: await outcome(fetch("${closedOrigin}/x")),
         relative: await outcome(fetch("/x")),
       };`,
      callFetchOf([originRule(api.origin), originRule(closedOrigin)]),
    );
    expect(value).toMatchObject({
      origin: {
        name: 'ToolRefused',
        code: 'FETCH_ORIGIN',
        message: expect.stringMatching(
          /^FETCH_ORIGIN: fetch GET https:\/\/api\.github\.com\/user was refused: .*add it to settings\.fetch/,
        ),
      },
      method: { name: 'ToolRefused', code: 'FETCH_METHOD' },
      credential: { name: 'ToolRefused', code: 'FETCH_CREDENTIAL' },
      network: {
        name: 'TypeError',
        message: expect.stringMatching(new RegExp(`^fetch GET ${closedOrigin}/x failed: .*ECONNREFUSED`)),
      },
      relative: { name: 'TypeError', message: 'fetch GET /x failed: it is not an absolute http:// or https:// URL' },
    });
    expect(api.seen).toEqual([]);
  });

  it('is refused with FETCH_ORIGIN when the server lists no origins, saying which setting adds them', async () => {
    expect(
      await valueOf(
        `return await fetch("https://example.com/").then(() => "answered", (e) => e.name + " " + e.code + ": " + e.message)`,
      ),
    ).toBe(
      'ToolRefused FETCH_ORIGIN: FETCH_ORIGIN: fetch GET https://example.com/ was refused: this server lists no origins scripts may fetch; add them under settings.fetch in the config file. Nothing was sent.',
    );
  });

  it('rejects each malformed call with a TypeError that says what it takes, and sends nothing', async () => {
    const cases: Array<readonly [string, string]> = [
      [
        'fetch(new Date())',
        'TypeError: fetch(url, init): url must be a string such as "https://api.example.com/items", not object',
      ],
      ['fetch("https://x.example/", { body: "x" })', 'TypeError: fetch(url, init): a GET request has no body'],
      [
        'fetch("https://x.example/", { method: "POST", body: { a: 1 } })',
        'TypeError: fetch(url, init): body must be a string (JSON.stringify(value) for JSON), a Uint8Array or an ArrayBuffer, not object',
      ],
      ['fetch("https://x.example/", { headers: { "a b": "1" } })', 'TypeError: Headers: "a b" is not a header name'],
      [
        'fetch("https://x.example/", { headers: { a: "1\\r\\nHost: evil" } })',
        'TypeError: Headers: a header value holds a line break or NUL',
      ],
      [
        'fetch("https://x.example/", { redirect: "follow-all" })',
        'TypeError: fetch(url, init): redirect must be "follow", "manual" or "error", not "follow-all"',
      ],
      [
        'fetch("https://x.example/", { signal: {} })',
        expect.stringContaining('TypeError: fetch(url, init): signal is not supported'),
      ],
      ['fetch("https://x.example/", { method: "trace" })', 'TypeError: fetch(url, init): TRACE is a method fetch never sends'],
    ];
    let calls = 0;
    const callFetch: FetchCaller = async () => {
      calls++;
      return { failed: 'sent', isError: true };
    };
    const outcomes = cases.map(([call]) => `await ${call}.then(() => "answered", (e) => e.name + ": " + e.message)`);
    expect(await valueOf(`return [${outcomes.join(', ')}];`, callFetch)).toEqual(cases.map(([, message]) => message));
    expect(calls).toBe(0);
  });

  it("never shows the script a credential: not in its request's headers, the response, an error or its output", async () => {
    const api = await startTarget((request, response) => {
      if (request.headers.authorization !== `Bearer ${TOKEN}`) {
        response.statusCode = 401;
        return void response.end('no');
      }
      // A careless API that echoes what it was sent, in a header and in the body.
      response.setHeader('x-you-sent', String(request.headers.authorization));
      response.end(JSON.stringify({ youSent: request.headers.authorization, all: request.headers }));
    });
    const rule = originRule(api.origin, { headers: { Authorization: `Bearer ${TOKEN}` }, secrets: [TOKEN] });
    const lines: string[] = [];
    const ret: ScriptReturn = await runScript(
      `const res = await fetch("${api.origin}/me");
       const text = await res.clone().text();
       console.log(text, [...res.headers]);
       const tries = [];
       const h = new Headers(); tries.push(h.get("authorization"));
       tries.push(await fetch("${api.origin}/me", { headers: { authorization: "x" } }).catch((e) => e.message));
       tries.push(await fetch("${api.origin.replace('127.0.0.1', 'localhost')}/me").catch((e) => e.message));
       return { status: res.status, body: text, header: res.headers.get("x-you-sent"), tries, globals: Object.getOwnPropertyNames(globalThis).join() };`,
      { callFetch: callFetchOf([rule], undefined, (line) => lines.push(line)) },
    );
    expect(ret.status, ret.error).toBe('finished');
    expect(api.seen[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const everything = JSON.stringify(ret) + lines.join('\n');
    expect(everything).not.toContain(TOKEN);
    expect(JSON.parse(ret.value!)).toMatchObject({ status: 200, header: 'Bearer [redacted by codemode-mcp]' });
  });

  it('counts each fetch in the ending, and names one the script never saw by its method and URL', async () => {
    const api = await startTarget((request, response) => {
      if (request.path === '/slow') return; // never answered
      response.end('ok');
    });
    const script = startScript(
      `await fetch("${api.origin}/a"); await (await fetch("${api.origin}/b")).text();
       await fetch("${api.origin}/slow");`,
      { callFetch: callFetchOf([originRule(api.origin)]) },
    );
    await until('the third request to arrive', () => api.seen.length === 3);
    script.stop('requested');
    await script.ended;
    const ret = await script.observe(0);
    expect(ret.status).toBe('stopped');
    expect(ret.calls.answered).toBe(2);
    expect(ret.calls.unseen).toEqual([
      expect.objectContaining({ tool: 'fetch', label: `fetch GET ${api.origin}/slow`, fate: 'cancelled, may have taken effect' }),
    ]);
  });
});

describe('a fetch that needs approval', () => {
  /** A gate whose person answers with `answer`, each question kept. */
  function gateAnswering(answer: ElicitResult): { readonly approve: ApproveRequest; readonly asked: string[] } {
    const asked: string[] = [];
    const gate = new ApprovalGate({
      person: {
        accepts: () => true,
        ask: async (request: ElicitRequest) => {
          asked.push((request.params as { message: string }).message);
          return answer;
        },
      },
      timeoutMs: 60_000,
      fallback: 'refuse',
      owner: 'this session',
      log: () => {},
    });
    return {
      approve: approveThrough(gate, 'test', { principal: 'local', session: 'the client' }, new ApprovalTally('refuse')),
      asked,
    };
  }

  it('asks a person about a POST, showing its method, URL and body digest, never the credential; sent once allowed', async () => {
    const api = await echo();
    const { approve, asked } = gateAnswering({ action: 'accept', content: { decision: 'allow' } });
    const rule = originRule(api.origin, {
      methods: ['GET', 'POST'],
      headers: { Authorization: `Bearer ${TOKEN}` },
      secrets: [TOKEN],
    });
    const value = await valueOf(
      `const get = await fetch("${api.origin}/read"); await get.text();
       const res = await fetch("${api.origin}/repos/o/r/issues?label=x", { method: "POST", body: JSON.stringify({ title: "hi" }) });
       return res.status;`,
      callFetchOf([rule], approve),
    );
    expect(value).toBe(200);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`wants to make a call of fetch POST ${api.origin}, which asks for your approval.`);
    expect(asked[0]).toMatch(
      new RegExp(`\\n- fetch POST ${api.origin}\\(/repos/o/r/issues\\?label=x, body 14 bytes sha256 [0-9a-f]{16}\\)\\n`),
    );
    expect(asked[0]).not.toContain(TOKEN);
    expect(api.seen.map((request) => request.method)).toEqual(['GET', 'POST']);
  });

  it('a denial rejects with ToolRefused APPROVAL_DENIED, and nothing is sent', async () => {
    const api = await echo();
    const { approve } = gateAnswering({ action: 'decline' });
    const value = await valueOf(
      `return await fetch("${api.origin}/x", { method: "DELETE" }).then(() => "sent", (e) => e.name + " " + e.code);`,
      callFetchOf([originRule(api.origin, { methods: ['DELETE'] })], approve),
    );
    expect(value).toBe('ToolRefused APPROVAL_DENIED');
    expect(api.seen).toEqual([]);
  });

  it('approval "ask" on the origin asks for a GET too; "allow" sends a POST unasked', async () => {
    const api = await echo();
    const { approve, asked } = gateAnswering({ action: 'accept', content: { decision: 'allow-script' } });
    await valueOf(
      `await fetch("${api.origin}/a"); await fetch("${api.origin}/b"); return 1;`,
      callFetchOf([originRule(api.origin, { approval: 'ask' })], approve),
    );
    // One question: the grant for the rest of the script covers the second GET.
    expect(asked).toHaveLength(1);
    const other = gateAnswering({ action: 'decline' });
    await valueOf(
      `return (await fetch("${api.origin}/c", { method: "POST", body: "x" })).status;`,
      callFetchOf([originRule(api.origin, { methods: ['POST'], approval: 'allow' })], other.approve),
    );
    expect(other.asked).toEqual([]);
  });
});
